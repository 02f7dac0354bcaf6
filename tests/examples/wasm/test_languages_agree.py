"""The same example written in different languages gives identical outputs on the same input."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smt.testing import make_record
from tests.examples.wasm.conftest import example_sources, languages_of

EXAMPLES = sorted({example for example, _ in example_sources() if len(languages_of(example)) > 1})

#: Inputs every example sees: ordinary, edge and broken values.
CORPUS = [
    None,
    b"",
    b"plain text",
    b"[1, 2, 3]",
    b"[]",
    b'{"user_id": 7, "email": "alice@example.com", "card": "4111 1111 1111 1111"}',
    b'{"password": "p", "list": ["x@y.io", {"token": 1}], "n": -1.5e3}',
    b'{"user_id": null}',
    b'{"unterminated": "abc',
    b"[1, 2",
    '{"name": "J\u00fcrgen", "mail": "j\u00fcrgen@example.de"}'.encode(),
    '{"to\u212aen": "kelvin sign is not k", "PASSWORD": 1}'.encode(),
    b'{"e": "a@b.c", "cards": "1234567890123 12345678901234567890", "esc": "\\u0041@x.io"}',
]


def outcome(chain, record, module_name):
    """What the chain made of the record: the output records, or the failure message (which names
    the module file, so that part is left out)."""
    try:
        return chain.apply(record)
    except Exception as exc:  # the message must agree too
        return f"{type(exc).__name__}: {exc}".replace(module_name, "<module>")


def test_there_are_examples_in_several_languages():
    assert EXAMPLES == ["filter_user_id", "header_to_key", "pii_mask", "split_array", "to_upper", "value_to_key"]


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("value", CORPUS)
def test_every_language_gives_the_same_outcome(example_chain, example, value):
    record = make_record(value=value, headers=(("tenant", b"acme"),))
    reference, *others = languages_of(example)
    expected = outcome(example_chain(example, reference, wasm_only=True), record, f"{example}.{reference}.wasm")

    for language in others:
        assert (
            outcome(example_chain(example, language, wasm_only=True), record, f"{example}.{language}.wasm") == expected
        ), language


# Text that is likely to contain e-mail addresses and card numbers, and things that look like them.
_PII_TEXT = st.text(alphabet='ab.-_+@ 0123456789x\\"', max_size=40)
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | _PII_TEXT,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["email", "password", "note", "apiKey", "user_id", "Token", "card"]), children, max_size=4
        )
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=_JSON_VALUES)
def test_pii_mask_agrees_across_languages_on_generated_documents(example_chain, document):
    record = make_record(value=json.dumps(document).encode())
    chains = {language: example_chain("pii_mask", language) for language in languages_of("pii_mask")}

    outcomes = {language: outcome(chain, record, f"pii_mask.{language}.wasm") for language, chain in chains.items()}

    assert len(set(map(repr, outcomes.values()))) == 1, outcomes
