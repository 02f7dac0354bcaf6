"""Records a file format cannot write, found per batch before the write (no Spark)."""

from __future__ import annotations

import io
import pickle

import fastavro
import pytest

from connectors.file import FileSink
from connectors.file._avro import kafka_record_schema
from smt import RecordBatch
from smt.plugin import PluginContext
from smt.testing.records import make_record


def file_sink(fmt: str) -> FileSink:
    sink = FileSink()
    sink.configure({"path": "/unused", "format": fmt}, PluginContext("sink", "sink."))
    return sink


def errors(sink, records, fields=None):
    arrow = RecordBatch.from_records(records).to_arrow(fields)
    return [(row, type(exc).__name__, str(exc)) for row, exc in sink.record_errors(arrow)]


LINE_BREAK = (
    "the value has a line break at byte {}; the text format writes one value per line, so it would be "
    "read back as several records (use format=jsonl, or remove the line breaks with a transform)"
)


def test_text_refuses_values_with_a_line_break():
    values = [b"one line", b"two\nlines", None, b"carriage\rreturn", b"", b"windows\r\n", b"\xff\n"]
    records = [make_record(value=v) for v in values]
    # The text sink receives only the value column.
    assert errors(file_sink("text"), records, ("value",)) == [
        (1, "SinkRecordError", LINE_BREAK.format(3)),
        (3, "SinkRecordError", LINE_BREAK.format(8)),
        (5, "SinkRecordError", LINE_BREAK.format(7)),
        (6, "SinkRecordError", LINE_BREAK.format(1)),
    ]


def test_text_checks_the_rows_of_a_sliced_batch():
    arrow = (
        RecordBatch.from_records([make_record(value=b"a\nb"), make_record(value=b"ok"), make_record(value=b"c\nd")])
        .to_arrow(("value",))
        .slice(1)
    )
    assert [row for row, _ in file_sink("text").record_errors(arrow)] == [1]


AVRO_CASES = [
    # (record, reason or None when the Avro schema takes it)
    (make_record(headers=(("trace", b"1"), ("empty", None))), None),
    (
        make_record(headers=(("trace", b"1"), (None, b"2"))),
        "a header has a null name; the avro format (kafka_record.avsc) requires header names",
    ),
    (make_record(topic=None, partition=None, offset=None, timestamp=None, key=None, value=None), None),
]


@pytest.mark.parametrize("record, reason", AVRO_CASES)
def test_avro_refuses_exactly_what_its_schema_refuses(record, reason):
    found = errors(file_sink("avro"), [record])
    assert found == ([] if reason is None else [(0, "SinkRecordError", reason)])
    # The check agrees with fastavro writing the record against kafka_record.avsc.
    row = {
        "topic": record.topic,
        "partition": record.partition,
        "offset": record.offset,
        "timestamp": record.timestamp,
        "timestampType": record.timestamp_type,
        "key": record.key,
        "value": record.value,
        "headers": [{"key": k, "value": v} for k, v in record.headers],
    }
    schema = fastavro.parse_schema(kafka_record_schema())
    if reason is None:
        fastavro.writer(io.BytesIO(), schema, [row])
    else:
        with pytest.raises((TypeError, ValueError)):
            fastavro.writer(io.BytesIO(), schema, [row])


def test_avro_writes_a_record_without_timestamp_type_as_create_time():
    from connectors.file._avro import _records

    arrow = RecordBatch.from_records([make_record(timestamp_type=None)]).to_arrow()
    assert errors(file_sink("avro"), [make_record(timestamp_type=None)]) == []
    (row,) = _records(iter([arrow]))
    assert row["timestampType"] == 0
    fastavro.writer(io.BytesIO(), fastavro.parse_schema(kafka_record_schema()), [row])


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_jsonl_and_parquet_hold_any_record(fmt):
    records = [make_record(value=b"a\nb", headers=((None, b"x"),), timestamp_type=None), make_record(topic=None)]
    assert errors(file_sink(fmt), records) == []


def test_the_file_sink_pickles_with_its_checks():
    copy = pickle.loads(pickle.dumps(file_sink("text")))
    arrow = RecordBatch.from_records([make_record(value=b"a\nb")]).to_arrow(("value",))
    assert [row for row, _ in copy.record_errors(arrow)] == [0]
