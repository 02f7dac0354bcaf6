"""ABI.md documents every Extism host function with the signature the host checks."""

import pathlib
import re

from host_functions.extism._plugin import HOST_ENV_FUNCTIONS, KERNEL_FUNCTIONS, USER_FUNCTIONS

ABI_DOC = pathlib.Path(__file__).parents[3] / "host_functions" / "ABI.md"


def _documented() -> dict[str, str]:
    section = ABI_DOC.read_text(encoding="utf-8").split("# Extism plug-ins", 1)[1]
    return dict(re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", section, re.M))


def test_every_extism_function_is_documented_with_its_signature():
    documented = _documented()
    for name, (params, results) in {**KERNEL_FUNCTIONS, **HOST_ENV_FUNCTIONS, **USER_FUNCTIONS}.items():
        assert name in documented, name
        documented_params, _, documented_results = documented[name].partition("->")
        assert tuple(re.findall(r"\b(i32|i64)\b", documented_params)) == params, name
        assert tuple(re.findall(r"\b(i32|i64)\b", documented_results)) == results, name
