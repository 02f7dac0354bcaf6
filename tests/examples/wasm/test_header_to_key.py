"""examples/wasm/header_to_key: the key becomes the header named by the guest config."""

import pytest

from smt.errors import StageError
from smt.testing import make_record
from tests.examples.wasm.conftest import languages_of

LANGUAGES = languages_of("header_to_key")

#: headers in -> key out (the example's properties name the header "tenant")
GOLDEN = [
    ((("tenant", b"acme"),), b"acme"),
    ((("other", b"x"), ("tenant", b"first"), ("tenant", b"last")), b"last"),  # the last one wins
    ((("tenant", b"\x00\x01"), ("trace", b"t")), b"\x00\x01"),
]


@pytest.mark.parametrize("path", ["fast", "reference"])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("headers", "expected_key"), GOLDEN)
def test_the_named_header_becomes_the_key(example_chain, language, path, headers, expected_key):
    chain = example_chain("header_to_key", language, path, wasm_only=True)  # the Wasm stage alone
    record = make_record(key=b"old", value=b"login", headers=headers)

    assert chain.apply(record) == [record.replace(key=expected_key)]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_guest_config_chooses_the_header(example_chain, language):
    chain = example_chain("header_to_key", language, wasm_only=True, **{"transforms.key.config.header": "trace"})
    record = make_record(headers=(("tenant", b"acme"), ("trace", b"t-42")))

    assert chain.apply(record) == [record.replace(key=b"t-42")]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_missing_header_fails_the_record(example_chain, language):
    chain = example_chain("header_to_key", language, wasm_only=True)

    with pytest.raises(StageError, match="header_to_key: the record has no such header, or it is empty"):
        chain.apply(make_record(headers=(("other", b"x"),)))


@pytest.mark.parametrize("language", LANGUAGES)
def test_without_the_guest_config_the_record_fails_naming_the_key(example_chain, language):
    chain = example_chain("header_to_key", language, wasm_only=True, **{"transforms.key.config.header": None})

    with pytest.raises(
        StageError, match=r"header_to_key: the guest config 'header' is not set \(transforms.<alias>.config.header\)"
    ):
        chain.apply(make_record(headers=(("tenant", b"acme"),)))
