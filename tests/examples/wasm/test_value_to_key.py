"""examples/wasm/value_to_key: the key becomes a copy of the value."""

import pytest

from smt.errors import StageError
from smt.testing import make_record
from tests.examples.wasm.conftest import languages_of

LANGUAGES = languages_of("value_to_key")

#: (key in, value) -> key out
GOLDEN = [
    ((None, b"order-1001"), b"order-1001"),
    ((b"old-key", b"order-1002"), b"order-1002"),
    ((b"k", b"\x00\xff binary \x01"), b"\x00\xff binary \x01"),
]


@pytest.mark.parametrize("path", ["fast", "reference"])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("key_and_value", "expected_key"), GOLDEN)
def test_the_key_becomes_the_value(example_chain, language, path, key_and_value, expected_key):
    key, value = key_and_value
    record = make_record(key=key, value=value, topic="orders")

    assert example_chain("value_to_key", language, path).apply(record) == [record.replace(key=expected_key)]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("value", [None, b""])
def test_a_record_without_a_value_fails_with_the_guest_message(example_chain, language, value):
    chain = example_chain("value_to_key", language)

    with pytest.raises(StageError, match="value_to_key: the record has no value to use as its key"):
        chain.apply(make_record(key=b"k", value=value))
