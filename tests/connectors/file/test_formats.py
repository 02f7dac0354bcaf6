"""Every file format round-trips Kafka-layout records; jsonl lines match their golden form."""

import datetime
import json
import os

import pytest

from connectors.file.formats import FORMATS, ReadOptions
from smt.connector import SOURCE_ERROR_COLUMN
from smt.record import KAFKA_ROW_SCHEMA_DDL

pytestmark = pytest.mark.spark

UTC = datetime.timezone.utc

#: (key, value, topic, partition, offset, timestamp, timestampType, headers)
RECORDS = [
    (
        b"user-1",
        b'{"amount": 3}',
        "orders",
        0,
        41,
        datetime.datetime(2023, 11, 14, 22, 13, 20, 123000, UTC),
        0,
        [("trace", b"abc"), ("trace", b"def")],
    ),
    (
        None,
        b"\xff\xfe not utf-8",
        "orders",
        1,
        42,
        datetime.datetime(2024, 1, 1, tzinfo=UTC),
        1,
        [("raw", b"\x00\xff"), ("empty", None)],
    ),
    (b"\x80", None, "payments", 2, 43, datetime.datetime(2024, 1, 2, tzinfo=UTC), 0, []),
]

#: The jsonl line of each record in RECORDS: UTF-8 bytes as text, others as *_base64.
GOLDEN_JSONL = [
    {
        "topic": "orders",
        "partition": 0,
        "offset": 41,
        "timestamp": 1700000000123,
        "timestampType": 0,
        "key": "user-1",
        "value": '{"amount": 3}',
        "headers": [{"key": "trace", "value": "abc"}, {"key": "trace", "value": "def"}],
    },
    {
        "topic": "orders",
        "partition": 1,
        "offset": 42,
        "timestamp": 1704067200000,
        "timestampType": 1,
        "value_base64": "//4gbm90IHV0Zi04",
        "headers": [{"key": "raw", "value_base64": "AP8="}, {"key": "empty"}],
    },
    {
        "topic": "payments",
        "partition": 2,
        "offset": 43,
        "timestamp": 1704153600000,
        "timestampType": 0,
        "key_base64": "gA==",
        "headers": [],
    },
]


def records_df(spark):
    rows = [(*r[:7], [{"key": k, "value": v} for k, v in r[7]]) for r in RECORDS]
    return spark.createDataFrame(rows, KAFKA_ROW_SCHEMA_DDL)


def as_tuples(df):
    out = []
    for row in df.collect():
        headers = [(h["key"], None if h["value"] is None else bytes(h["value"])) for h in row["headers"] or []]
        key = None if row["key"] is None else bytes(row["key"])
        value = None if row["value"] is None else bytes(row["value"])
        timestamp = row["timestamp"].replace(tzinfo=UTC)
        out.append(
            (key, value, row["topic"], row["partition"], row["offset"], timestamp, row["timestampType"], headers)
        )
    return sorted(out, key=lambda r: r[4])


def data_files(directory):
    return sorted(n for n in os.listdir(directory) if not n.startswith(("_", ".")))


@pytest.mark.parametrize("name", ["jsonl", "parquet", "avro"])
def test_whole_records_round_trip(spark, tmp_path, name):
    fmt = FORMATS[name]
    out = str(tmp_path / name)
    fmt.write(records_df(spark), out, "errorifexists")
    assert data_files(out)
    back = fmt.read(spark, ReadOptions(out, topic="unused"))
    if SOURCE_ERROR_COLUMN in back.columns:  # jsonl marks lines it could not parse
        assert [row[SOURCE_ERROR_COLUMN] for row in back.collect()] == [None] * len(RECORDS)
        back = back.drop(SOURCE_ERROR_COLUMN)
    assert back.schema.simpleString() == spark.createDataFrame([], KAFKA_ROW_SCHEMA_DDL).schema.simpleString()
    assert as_tuples(back) == [tuple(r[:7]) + ([*r[7]],) for r in RECORDS]


def test_jsonl_lines_match_the_documented_encoding(spark, tmp_path):
    out = str(tmp_path / "jsonl")
    FORMATS["jsonl"].write(records_df(spark).coalesce(1), out, "errorifexists")
    (part,) = data_files(out)
    with open(os.path.join(out, part), encoding="utf-8") as handle:
        lines = [json.loads(line) for line in handle]
    assert sorted(lines, key=lambda r: r["offset"]) == GOLDEN_JSONL


def test_jsonl_reads_lines_without_metadata_using_the_source_topic(spark, tmp_path):
    (tmp_path / "in.jsonl").write_text('{"value": "hello"}\n{"key_base64": "AQI=", "value": "x"}\n')
    rows = FORMATS["jsonl"].read(spark, ReadOptions(str(tmp_path / "in.jsonl"), topic="events")).collect()
    assert [(r["topic"], r["key"] and bytes(r["key"]), bytes(r["value"])) for r in rows] == [
        ("events", None, b"hello"),
        ("events", b"\x01\x02", b"x"),
    ]


def test_text_keeps_only_values_one_per_line(spark, tmp_path):
    out = str(tmp_path / "text")
    FORMATS["text"].write(records_df(spark).coalesce(1), out, "errorifexists")
    (part,) = data_files(out)
    with open(os.path.join(out, part), "rb") as handle:
        lines = handle.read().split(b"\n")
    assert lines[0] == b'{"amount": 3}' and lines[2] == b"" and len(lines) == 4


@pytest.mark.parametrize("mode, expected_files", [("overwrite", 1), ("append", 2), ("ignore", 1)])
def test_avro_honours_save_modes(spark, tmp_path, mode, expected_files):
    fmt = FORMATS["avro"]
    out = str(tmp_path / "avro")
    fmt.write(records_df(spark).coalesce(1), out, "errorifexists")
    fmt.write(records_df(spark).coalesce(1), out, mode)
    assert len(data_files(out)) == expected_files
    assert not [n for n in os.listdir(out) if n.startswith("_temporary")]


def test_avro_refuses_an_existing_directory_by_default(spark, tmp_path):
    out = str(tmp_path / "avro")
    FORMATS["avro"].write(records_df(spark), out, "errorifexists")
    with pytest.raises(Exception, match=r"cannot write Avro files to '.*avro': it already exists"):
        FORMATS["avro"].write(records_df(spark), out, "errorifexists")
