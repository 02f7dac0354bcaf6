"""examples/wasm/split_array: a JSON array value fans out into one record per element."""

import pytest

from smt.errors import StageError
from smt.testing import make_record
from tests.examples.wasm.conftest import languages_of

LANGUAGES = languages_of("split_array")

#: value in -> values out, in order
GOLDEN = [
    (
        b'[{"sku": "A-1", "qty": 2}, {"sku": "B-7", "qty": 1}]',
        [b'{"sku": "A-1", "qty": 2}', b'{"sku": "B-7", "qty": 1}'],
    ),
    (
        b' [ 1 , "two,2" , [3, [4]] , {"five": "]"} , null , true ] ',
        [b"1", b'"two,2"', b"[3, [4]]", b'{"five": "]"}', b"null", b"true"],
    ),
    (b'["single"]', [b'"single"']),
    (b"[]", []),
]


@pytest.mark.parametrize("path", ["fast", "reference"])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("value", "elements"), GOLDEN)
def test_one_record_per_element_keeping_key_topic_and_headers(example_chain, language, path, value, elements):
    record = make_record(value=value, key=b"order-9", topic="orders", headers=(("trace", b"t-1"),))

    out = example_chain("split_array", language, path).apply(record)

    assert out == [record.replace(value=element) for element in elements]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_null_value_passes_unchanged(example_chain, language):
    record = make_record(value=None)

    assert example_chain("split_array", language).apply(record) == [record]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("value", [b'{"a": [1]}', b'"[1]"', b"[1, 2", b"[1,, 2]"])
def test_a_value_that_is_not_a_json_array_fails_without_output(example_chain, language, value):
    chain = example_chain("split_array", language)

    with pytest.raises(StageError, match="split_array: the record value is not a JSON array"):
        chain.apply(make_record(value=value))


@pytest.mark.parametrize("language", LANGUAGES)
def test_outputs_of_a_batch_follow_their_input_rows(example_chain, language):
    from smt.batch import RecordBatch
    from tests.host_functions.conftest import CollectErrors

    values = [b"[1, 2]", b"[]", b"not json", b'["a", "b", "c"]']
    batch = RecordBatch.from_records([make_record(value=v, offset=i) for i, v in enumerate(values)])
    errors = CollectErrors()
    transform = example_chain("split_array", language).stages[0].transform

    out = transform.apply_batch(batch, errors)

    assert [(r.offset, r.value) for r in out.records()] == [(0, b"1"), (0, b"2"), (3, b'"a"'), (3, b'"b"'), (3, b'"c"')]
    assert out.column("origin") == [0, 0, 3, 3, 3]
    assert errors.rows == [2]
