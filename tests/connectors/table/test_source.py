"""source=table on local Spark: tables read back into records through the chain, encoded by value.converter."""

from __future__ import annotations

import base64
import json

import pytest

from connectors.table import TableSource
from connectors.table.source import TableReadError
from smt.errors import ConfigError
from smt.pipeline import PipelineSpec, run_pipeline
from smt.plugin import PluginContext

pytestmark = pytest.mark.spark

DECIMAL = {"name": "org.apache.kafka.connect.data.Decimal", "version": 1}

#: A schema that survives the round trip as it is: every field optional (a table's columns are
#: nullable), logical types with their version, the decimal's precision as a parameter.
ORDER_SCHEMA = {
    "type": "struct",
    "optional": False,
    "fields": [
        {"field": "order_id", "type": "int64", "optional": True},
        {
            "field": "amount",
            "type": "bytes",
            "optional": True,
            **DECIMAL,
            "parameters": {"scale": "2", "connect.decimal.precision": "38"},
        },
        {"field": "country", "type": "string", "optional": True},
        {
            "field": "placed",
            "type": "int64",
            "optional": True,
            "name": "org.apache.kafka.connect.data.Timestamp",
            "version": 1,
        },
        {"field": "day", "type": "int32", "optional": True, "name": "org.apache.kafka.connect.data.Date", "version": 1},
        {"field": "tags", "type": "array", "items": {"type": "string", "optional": True}, "optional": True},
        {
            "field": "counts",
            "type": "map",
            "keys": {"type": "string", "optional": False},
            "values": {"type": "int32", "optional": True},
            "optional": True,
        },
        {
            "field": "address",
            "type": "struct",
            "optional": True,
            "fields": [{"field": "city", "type": "string", "optional": True}],
        },
    ],
}


def order(order_id: int, cents: int, country: str | None = "NL") -> dict:
    """An order's JSON envelope, as JsonConverter writes it (a decimal in its fewest bytes, as Java's BigInteger)."""
    unscaled = cents.to_bytes(cents.bit_length() // 8 + 1, "big", signed=True)
    return {
        "schema": ORDER_SCHEMA,
        "payload": {
            "order_id": order_id,
            "amount": base64.b64encode(unscaled).decode(),
            "country": country,
            "placed": 1_700_000_000_000 + order_id,
            "day": 19_000 + order_id,
            "tags": ["new", None],
            "counts": {"items": order_id},
            "address": {"city": "Delft"} if order_id % 2 else None,
        },
    }


def written_records(folder) -> list[dict]:
    return [json.loads(line) for f in sorted(folder.glob("part-*")) for line in f.read_text().splitlines()]


def splits(spark, table, fmt: str = "parquet") -> list[int]:
    """The partitions the rows of a folder of ``fmt`` files get, found as the records module says."""
    query = (
        "SELECT DISTINCT crc32(concat(input_file_name(), '@', input_file_block_start())) & 2147483647 AS split "
        f"FROM {fmt}.`{table}`"
    )
    return [row.split for row in spark.sql(query).collect()]


def source_pipeline(table: str, out: str, **keys) -> PipelineSpec:
    props = {
        "source": "table",
        "source.path": table,
        "value.converter": "json",
        "sink": "file",
        "sink.path": out,
        "sink.format": "jsonl",
        **{k.replace("__", "."): v for k, v in keys.items()},
    }
    return PipelineSpec.from_properties(props)


def test_a_table_written_by_the_sink_reads_back_as_the_records_it_came_from(spark, tmp_path, kafka_input):
    originals = [order(1, 1250), order(2, -5, None), order(3, 100_000)]
    records = kafka_input([json.dumps(o).encode() for o in originals])
    into_table = {
        "source": "file",
        "source.path": records,
        "source.format": "parquet",
        "value.converter": "json",
        "sink": "table",
        "sink.path": str(tmp_path / "orders"),
    }
    run_pipeline(PipelineSpec.from_properties(into_table), spark=spark)

    spec = source_pipeline(
        str(tmp_path / "orders"),
        str(tmp_path / "out"),
        key__converter="json",
        key__converter__schemas__enable="false",
        source__key__columns="order_id,country",
    )
    result = run_pipeline(spec, spark=spark)
    assert (result.counts.read, result.counts.written) == (3, 3)
    out = sorted(written_records(tmp_path / "out"), key=lambda r: json.loads(r["value"])["payload"]["order_id"])
    assert [json.loads(r["value"]) for r in out] == originals
    assert [json.loads(r["key"]) for r in out] == [
        {"order_id": 1, "country": "NL"},
        {"order_id": 2, "country": None},
        {"order_id": 3, "country": "NL"},
    ]
    assert {r["topic"] for r in out} == {"orders"}
    # Partition: the split that held the row, found again by the query the records module gives;
    # offset: the row's place in that split (one small file: one split).
    [split] = splits(spark, tmp_path / "orders")
    assert sorted((r["partition"], r["offset"]) for r in out) == [(split, 0), (split, 1), (split, 2)]


def test_rows_go_through_the_chain_and_a_row_the_converter_cannot_encode_is_dead_lettered(spark, tmp_path):
    spark.sql(
        "SELECT * FROM VALUES (1L, 'a@example.com', 2.5D), (2L, 'b@example.com', double('NaN')) AS t(id, email, score)"
    ).coalesce(1).write.parquet(str(tmp_path / "scores"))
    spec = source_pipeline(
        str(tmp_path / "scores"),
        str(tmp_path / "out"),
        source__topic="backfill",
        value__converter__schemas__enable="false",
        transforms="mask",
        transforms__mask__type="MaskField$Value",
        transforms__mask__fields="email",
        errors__tolerance="all",
        errors__deadletterqueue__path=str(tmp_path / "dlq"),
        errors__deadletterqueue__context__headers__enable="true",
    )
    result = run_pipeline(spec, spark=spark)
    assert (result.counts.written, result.counts.dead_lettered) == (1, 1)
    [record] = written_records(tmp_path / "out")
    assert (record["topic"], json.loads(record["value"])) == ("backfill", {"id": 1, "email": "", "score": 2.5})
    [letter] = spark.read.json(str(tmp_path / "dlq")).collect()
    headers = {h["key"]: h["value"] for h in letter["headers"]}
    assert headers["__connect.errors.stage"] == "TASK_POLL"
    [split] = splits(spark, tmp_path / "scores")
    assert headers["__connect.errors.partition"] == str(split) and headers["__connect.errors.offset"] == "1"
    assert headers["__connect.errors.exception.message"].startswith(
        f"source.path={tmp_path / 'scores'}: row 1 of split {split}: JsonConverter (VALUE_CONVERTER) failed on topic 'backfill'"
    )
    assert "cannot be written as JSON" in headers["__connect.errors.exception.message"]


def test_a_column_without_a_connect_type_fails_naming_it(spark, tmp_path):
    spark.sql("SELECT 1L AS id, INTERVAL '1' DAY AS wait").write.parquet(str(tmp_path / "t"))
    spec = source_pipeline(str(tmp_path / "t"), str(tmp_path / "out"))
    with pytest.raises(TableReadError, match=r"column 'wait' is interval day, which has no Kafka Connect type"):
        run_pipeline(spec, spark=spark)


def test_a_key_column_the_table_lacks_is_named(spark, tmp_path):
    spark.sql("SELECT 1L AS id").write.parquet(str(tmp_path / "t"))
    spec = source_pipeline(str(tmp_path / "t"), str(tmp_path / "out"), source__key__columns="order_id")
    with pytest.raises(ConfigError, match=r"source.key.columns: column 'order_id' is not a column of source.path="):
        run_pipeline(spec, spark=spark)


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"path": "/a", "table": "db.t"}, "source.path: give one of source.path and source.table"),
        ({}, "source.path: give one of source.path and source.table"),
        ({"table": "", "format": "jdbc", "path": "/a"}, "source.table: names the database table when format=jdbc"),
        ({"path": "/a", "format": "iceberg"}, "source.path: an Iceberg table is read by name: give source.table="),
    ],
)
def test_configuration_errors_name_the_key(keys, message):
    with pytest.raises(ConfigError, match=message):
        TableSource().configure(keys, PluginContext("source", "source."))


def test_a_database_table_is_not_streamed(spark, tmp_path):
    spec = PipelineSpec.from_properties(
        {
            "source": "table",
            "source.format": "jdbc",
            "source.table": "orders",
            "source.option.url": "jdbc:postgresql://127.0.0.1:1/shop",
            "source.format.jars": "none",
            "sink": "console",
            "mode": "streaming",
            "checkpoint.location": str(tmp_path / "cp"),
        }
    )
    with pytest.raises(
        ConfigError, match="mode: source.format=jdbc has no streaming reader in Spark .*: run it with mode=batch"
    ):
        run_pipeline(spec, spark=spark)
