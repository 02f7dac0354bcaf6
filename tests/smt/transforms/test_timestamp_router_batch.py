"""TimestampRouter on whole columns: the topics the per-record path gives, bad rows failed one by one."""

import pyarrow as pa
import pytest

from smt.batch import RecordBatch
from smt.errors import DataError
from smt.transforms.timestamp_router import TimestampRouter
from tests.smt.transforms._helpers import RaisingErrors, conf, make_record

DAY = 86_400_000

#: (topic, epoch millis, expected topic with the default yyyyMMdd format)
ROUTES = [
    ("orders", 1483425001864, "orders-20170103"),
    ("orders", DAY - 1, "orders-19700101"),  # last millisecond of a day
    ("orders", DAY, "orders-19700102"),  # first millisecond of the next
    ("audit", DAY, "audit-19700102"),  # same day, other topic
    ("orders", -1, "orders-19691231"),  # before 1970
    ("orders", -DAY, "orders-19691231"),
    ("orders", -DAY - 1, "orders-19691230"),
    ("audit", 1483425001864, "audit-20170103"),
    ("orders", 0, "orders-19700101"),
]


def arrow_batch(topics, millis):
    micros = [None if m is None else m * 1000 for m in millis]
    return RecordBatch.from_arrow(
        pa.RecordBatch.from_pydict(
            {
                "value": pa.array([b"v"] * len(topics), pa.binary()),
                "topic": pa.array(topics, pa.string()),
                "timestamp": pa.array(micros, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
            }
        )
    )


def route(props, batch):
    errors = RaisingErrors()
    out = conf(TimestampRouter, props).apply_batch(batch, errors)
    return out, errors.failures


@pytest.mark.parametrize("build", ["arrow", "records"])
def test_each_row_gets_its_topic_and_day(build):
    topics = [t for t, _, _ in ROUTES]
    millis = [m for _, m, _ in ROUTES]
    if build == "arrow":
        batch = arrow_batch(topics, millis)
    else:
        batch = RecordBatch.from_records([make_record(topic=t, timestamp=m) for t, m in zip(topics, millis)])
    out, failures = route({}, batch)
    assert failures == []
    assert out.topic == [expected for _, _, expected in ROUTES]
    assert out.to_arrow(["topic"]).column(0).to_pylist() == out.topic


def test_rows_without_a_timestamp_fail_alone():
    out, failures = route({}, arrow_batch(["a", "b", "a", "c"], [DAY, None, DAY, None]))
    assert out.topic == ["a-19700102", "a-19700102"]
    assert [row for row, _ in failures] == [1, 3]
    assert all(isinstance(exc, DataError) for _, exc in failures)
    batch = arrow_batch(["a", "b", "a", "c"], [DAY, None, DAY, None])
    assert str(failures[0][1]) == f"Timestamp missing on record: {batch.record(1)}"  # the record path's message


def test_a_row_without_a_topic_fails_with_its_own_error():
    out, failures = route({}, arrow_batch(["a", None, None], [0, 0, DAY]))
    assert out.topic == ["a-19700101"]
    assert [row for row, _ in failures] == [1, 2]
    assert failures[0][1] is not failures[1][1]
    assert all(isinstance(exc, TypeError) for _, exc in failures)


def test_millisecond_patterns_over_a_wide_range_group_by_sorting():
    # The buckets span far more values than rows: the router numbers them by sorting instead.
    millis = [0, 10**12, 1, 10**12, -5]
    props = {"topic.format": "${timestamp}", "timestamp.format": "yyyyMMddHHmmssSSS"}
    out, failures = route(props, arrow_batch(["t"] * 5, millis))
    per_record = [conf(TimestampRouter, props).apply(make_record(timestamp=m)).topic for m in millis]
    assert failures == [] and out.topic == per_record
    assert out.topic[1] == "20010909014640000" and out.topic[4] == "19691231235959995"


def test_every_row_null_timestamps():
    out, failures = route({}, arrow_batch(["a", "b"], [None, None]))
    assert len(out) == 0 and [row for row, _ in failures] == [0, 1]


def test_origins_and_other_columns_follow_their_rows():
    batch = arrow_batch(["a", "b", "c"], [0, None, DAY])
    batch.set_column("origin", [7, 8, 9])
    out, _ = route({"topic.format": "${timestamp}/${topic}"}, batch)
    assert out.origin == [7, 9] and out.topic == ["19700101/a", "19700102/c"]
    assert out.value == [b"v", b"v"]
