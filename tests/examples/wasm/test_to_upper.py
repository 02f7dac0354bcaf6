"""examples/wasm/to_upper: the value's ASCII letters upper-cased, in every guest language."""

import pytest

from smt.testing import make_record
from tests.examples.wasm.conftest import languages_of

LANGUAGES = languages_of("to_upper")

#: value in -> value out
GOLDEN = [
    (b"hello world", b"HELLO WORLD"),
    (b"Mixed Case 123 !?", b"MIXED CASE 123 !?"),
    ("h\u00e9llo \u00fcber".encode(), "H\u00e9LLO \u00fcBER".encode()),  # only ASCII changes
    (b"ALREADY", b"ALREADY"),
    (b"", b""),
    (None, None),
]


@pytest.mark.parametrize("path", ["fast", "reference"])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("value", "expected"), GOLDEN)
def test_upper_cases_the_value_and_keeps_the_rest(example_chain, language, path, value, expected):
    chain = example_chain("to_upper", language, path)
    record = make_record(value=value, key=b"k-1", topic="events", headers=(("h", b"x"),))

    assert chain.apply(record) == [record.replace(value=expected)]
