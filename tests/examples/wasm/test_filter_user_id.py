"""examples/wasm/filter_user_id: records without a (non-null) top-level user_id are dropped."""

import pytest

from smt.errors import StageError
from smt.testing import make_record
from tests.examples.wasm.conftest import languages_of

LANGUAGES = languages_of("filter_user_id")

KEPT = [
    b'{"user_id": 1, "event": "login"}',
    b'{"event": "purchase", "user_id": "u-2"}',
    b'{"user_id": {"tenant": "a", "id": 3}}',
    b'{"user_id": 0}',
    b'{"user_id": false}',
    b'{"user_id": null, "user_id": 5}',  # the last duplicate wins
]
DROPPED = [
    b'{"event": "heartbeat"}',
    b'{"user_id": null}',
    b'{"session": {"user_id": 3}}',  # only top-level members count
    b'{"user_id_hash": "abc"}',
    b"{}",
    b"",
    None,
]


@pytest.mark.parametrize("path", ["fast", "reference"])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("value", KEPT)
def test_records_with_a_user_id_pass_unchanged(example_chain, language, path, value):
    record = make_record(value=value, key=b"k", headers=(("h", b"1"),))

    assert example_chain("filter_user_id", language, path).apply(record) == [record]


@pytest.mark.parametrize("path", ["fast", "reference"])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("value", DROPPED)
def test_records_without_a_user_id_are_dropped(example_chain, language, path, value):
    assert example_chain("filter_user_id", language, path).apply(make_record(value=value)) == []


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("value", [b"[1, 2]", b'"user_id"', b"null", b'{"user_id": 1'])
def test_a_value_that_is_not_a_json_object_fails(example_chain, language, value):
    chain = example_chain("filter_user_id", language)

    with pytest.raises(StageError, match="filter_user_id: the record value is not a JSON object"):
        chain.apply(make_record(value=value))


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_batch_keeps_only_the_records_with_a_user_id_in_order(example_chain, language):
    from smt.batch import RecordBatch
    from tests.host_functions.conftest import CollectErrors

    values = [KEPT[0], DROPPED[0], KEPT[1], DROPPED[1], DROPPED[5], KEPT[2]]
    batch = RecordBatch.from_records([make_record(value=v, offset=i) for i, v in enumerate(values)])
    transform = example_chain("filter_user_id", language).stages[0].transform

    errors = CollectErrors()

    out = transform.apply_batch(batch, errors)

    assert [(r.offset, r.value) for r in out.records()] == [(0, KEPT[0]), (2, KEPT[1]), (5, KEPT[2])]
    assert errors.failures == []
