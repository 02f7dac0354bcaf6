"""ABI.md documents every host function with its exact signature."""

import pathlib
import re

from host_functions import ABI_FUNCTIONS

ABI_DOC = pathlib.Path(__file__).parents[2] / "host_functions" / "ABI.md"


def _documented() -> dict[str, str]:
    rows = re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", ABI_DOC.read_text(encoding="utf-8"), re.M)
    return dict(rows)


def test_every_host_function_is_documented_with_its_signature():
    documented = _documented()
    for function in ABI_FUNCTIONS:
        assert function.name in documented, function.name
        params, _, results = documented[function.name].partition("->")
        assert tuple(re.findall(r"\b(i32|i64)\b", params)) == function.params, function.name
        assert tuple(re.findall(r"\b(i32|i64)\b", results)) == function.results, function.name
