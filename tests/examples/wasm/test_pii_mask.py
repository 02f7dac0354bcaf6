"""examples/wasm/pii_mask: e-mails, card numbers and secrets masked inside JSON values."""

import pytest

from smt.errors import StageError
from smt.testing import make_record
from tests.examples.wasm.conftest import languages_of

LANGUAGES = languages_of("pii_mask")

#: value in -> value out
GOLDEN = [
    # e-mails keep the first character of the local part
    (b'{"email": "alice@example.com"}', b'{"email": "a***@example.com"}'),
    (b'{"note": "write to bob.smith@mail.example.org."}', b'{"note": "write to b***@mail.example.org."}'),
    (b'{"to": ["x@y.io", "z_9+tag@sub.domain.co.uk"]}', b'{"to": ["x***@y.io", "z***@sub.domain.co.uk"]}'),
    (b'{"handle": "@alice", "host": "a@localhost"}', b'{"handle": "@alice", "host": "a@localhost"}'),  # not e-mails
    # card numbers keep their last four digits and their grouping
    (b'{"card": "4111 1111 1111 1111"}', b'{"card": "**** **** **** 1111"}'),
    (b'{"card": "5500-0000-0000-0004"}', b'{"card": "****-****-****-0004"}'),
    (b'{"amex": "378282246310005"}', b'{"amex": "***********0005"}'),
    (b'{"text": "card 4111111111111111 expires"}', b'{"text": "card ************1111 expires"}'),
    (b'{"phone": "555-1234", "order": "123456789012"}', b'{"phone": "555-1234", "order": "123456789012"}'),  # too short
    (b'{"n": 4111111111111111}', b'{"n": 4111111111111111}'),  # numbers are not card strings
    # secrets: a string or number under a secret-sounding member name
    (b'{"password": "hunter2", "api_key": 123456789}', b'{"password": "***", "api_key": "***"}'),
    (
        b'{"nested": {"Access_Token": "tok_abc", "clientSecret": ""}}',
        b'{"nested": {"Access_Token": "***", "clientSecret": "***"}}',
    ),
    (b'{"secrets": ["kept", "as-is"], "token": null}', b'{"secrets": ["kept", "as-is"], "token": null}'),
    # everything else is left byte for byte, including escapes and layout
    (
        b'{ "user" : "alice",\n  "quote": "say \\"hi\\" to x@y.com" }',
        b'{ "user" : "alice",\n  "quote": "say \\"hi\\" to x***@y.com" }',
    ),
    (b'[1, 2.5, true, null, "plain"]', b'[1, 2.5, true, null, "plain"]'),
    (None, None),
]


@pytest.mark.parametrize("path", ["fast", "reference"])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("value", "expected"), GOLDEN)
def test_masks_personal_data(example_chain, language, path, value, expected):
    record = make_record(value=value)

    assert example_chain("pii_mask", language, path).apply(record) == [record.replace(value=expected)]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_value_with_an_unterminated_string_fails(example_chain, language):
    chain = example_chain("pii_mask", language)

    with pytest.raises(StageError, match=r"pii_mask: the record value is not valid JSON \(unterminated string\)"):
        chain.apply(make_record(value=b'{"email": "alice@example.com'))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sample_input_is_masked(example_chain, language):
    from tests.examples.wasm.conftest import EXAMPLES_DIR

    lines = (EXAMPLES_DIR / "pii_mask" / "input.txt").read_bytes().splitlines()
    chain = example_chain("pii_mask", language)

    masked = [chain.apply(make_record(value=line))[0].value for line in lines]

    assert masked == [
        b'{"user": "alice", "email": "a***@example.com", "card": "**** **** **** 1111", "password": "***"}',
        b'{"user": "bob", "note": "call b***@mail.example.org or use card ****-****-****-0004", "api_key": "***"}',
        b'{"user": "carol", "orders": [{"id": 7, "payment": {"card": "***********0005", "token": "***"}}]}',
    ]
