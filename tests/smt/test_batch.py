"""RecordBatch: which columns a batch owns, metadata columns' Arrow arrays, timestamps as millis."""

import numpy as np
import pyarrow as pa
import pytest

from smt.batch import RecordBatch
from smt.record import Record


def batch_of(*values, **columns):
    batch = RecordBatch.from_records([Record(topic="t", value=v, timestamp=i) for i, v in enumerate(values)])
    for name, column in columns.items():
        batch.set_column(name, column)
    return batch


def arrow_batch(topics, millis):
    micros = [None if m is None else m * 1000 for m in millis]
    return RecordBatch.from_arrow(
        pa.RecordBatch.from_pydict(
            {
                "value": pa.array([b"v"] * len(topics), pa.binary()),
                "topic": pa.array(topics, pa.string()),
                "partition": pa.array([3] * len(topics), pa.int32()),
                "timestamp": pa.array(micros, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
            }
        )
    )


# --- ownership ---------------------------------------------------------------------------


def test_batches_from_records_or_arrow_own_nothing():
    assert not batch_of({"a": 1}).owns("value")
    assert not arrow_batch(["t"], [1]).owns("value")


def test_set_column_owned_declares_ownership_and_a_later_set_column_ends_it():
    batch = batch_of({"a": 1}, {"a": 2})
    mine = [{"a": 1}, {"a": 2}]
    batch.set_column("value", mine, owned=True)
    assert batch.owns("value") and not batch.owns("key")
    batch.set_column("value", list(mine))
    assert not batch.owns("value")


def test_only_a_list_can_be_owned():
    batch = batch_of({"a": 1})
    with pytest.raises(TypeError, match=r"only a list column can be owned, not tuple \('value'\)"):
        batch.set_column("value", ({"a": 1},), owned=True)


def test_derived_batches_inherit_ownership_of_the_columns_they_share():
    batch = batch_of({"a": 1}, {"a": 2})
    batch.set_column("value", [{"a": 1}, {"a": 2}], owned=True)
    assert batch.with_columns(topic=["x", "y"]).owns("value")
    assert batch.shallow_copy().owns("value")
    assert not batch.with_columns(value=[{}, {}]).owns("value")


def test_take_keeps_ownership_only_for_strictly_increasing_rows():
    batch = batch_of({"a": 1}, {"a": 2}, {"a": 3})
    batch.set_column("value", [{"a": 1}, {"a": 2}, {"a": 3}], owned=True)
    assert batch.take([0, 2]).owns("value")
    assert batch.take(np.array([1, 2])).owns("value")
    assert not batch.take([0, 0]).owns("value")  # one map in two rows
    assert not batch.take([2, 1]).owns("value")


def test_without_rows_keeps_the_other_rows_in_order_and_their_ownership():
    batch = batch_of({"a": 1}, {"a": 2}, {"a": 3}, {"a": 4})
    batch.set_column("value", [{"a": 1}, {"a": 2}, {"a": 3}, {"a": 4}], owned=True)
    rest = batch.without_rows([2, 0, 2])
    assert rest.value == [{"a": 2}, {"a": 4}] and rest.timestamp == [1, 3]
    assert rest.owns("value")
    assert batch.without_rows([]) is batch
    assert len(batch.without_rows(range(4))) == 0


def test_concat_ordered_owns_nothing():
    batch = batch_of({"a": 1})
    batch.set_column("value", [{"a": 1}], owned=True)
    assert not RecordBatch.concat_ordered([batch, batch], [(0, 0), (1, 0)]).owns("value")


# --- metadata columns keep their Arrow array -------------------------------------------------


def test_a_converted_metadata_column_hands_back_its_arrow_array():
    batch = arrow_batch(["a", "b", "a"], [1, 2, 3])
    source = batch.arrow_column("topic")
    assert batch.topic == ["a", "b", "a"] and not batch.is_arrow("topic")
    assert batch.arrow_column("topic") is source
    assert batch.with_columns(value=[1, 2, 3]).arrow_column("topic") is source


def test_a_replaced_metadata_column_is_rebuilt_from_its_list():
    batch = arrow_batch(["a", "b"], [1, 2])
    batch.column("topic")
    batch.set_column("topic", ["x", "y"])
    assert batch.arrow_column("topic").to_pylist() == ["x", "y"]
    assert batch.to_arrow(["topic"]).column(0).to_pylist() == ["x", "y"]


def test_repeated_topics_share_one_string_object():
    batch = arrow_batch(["orders", "orders", None], [1, 2, 3])
    topics = batch.topic
    assert topics == ["orders", "orders", None] and topics[0] is topics[1]


# --- timestamps as millis ----------------------------------------------------------------


def test_timestamp_millis_reads_arrow_with_nulls_and_times_before_1970():
    millis, nulls = arrow_batch(["t"] * 3, [-86_400_001, None, 1483425001864]).timestamp_millis()
    assert millis.tolist() == [-86_400_001, 0, 1483425001864]
    assert nulls.tolist() == [False, True, False]


def test_timestamp_millis_reads_a_list_column():
    millis, nulls = batch_of("a", "b").timestamp_millis()
    assert millis.tolist() == [0, 1] and nulls is None


# --- origins -----------------------------------------------------------------------------


def test_a_batch_read_from_arrow_keeps_its_origins_as_a_range_until_asked_for_a_list():
    batch = arrow_batch(["a", "b", "c"], [1, 2, 3])
    assert batch.origins() == range(3)
    assert batch.origin == [0, 1, 2] and batch.origins() == [0, 1, 2]
    batch.set_column("origin", range(3))
    assert isinstance(batch.origins(), range)


def test_a_row_for_row_chain_never_builds_an_origin_list():
    from smt.chain import TransformChain

    chain = TransformChain.from_properties(
        {
            "transforms": "route",
            "transforms.route.type": "RegexRouter",
            "transforms.route.regex": "(.*)",
            "transforms.route.replacement": "$1-out",
        }
    )
    out = chain.apply_batch(arrow_batch(["a", "b"], [1, 2]))
    assert out.topic == ["a-out", "b-out"] and out.origins() == range(2)


@pytest.mark.parametrize(
    "origins, expected",
    [
        (range(4), 4),
        ([], 0),
        ([0, 0, 2, 3, 3, 3], 3),  # fan-out and a drop, in input order
        ([2, 0, 2, 1], 3),  # out of order: still counted right
    ],
)
def test_distinct_origins(origins, expected):
    from smt.batch import distinct_origins

    assert distinct_origins(origins) == expected
