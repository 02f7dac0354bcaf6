"""The examples of docs/tables.md and docs/cdc.md: one pipeline file per format, run as a user runs them.

Parquet runs on every Spark.  Delta and Iceberg run where Maven Central has a
release for the installed Spark (see :mod:`connectors.table.jars`); on a
Spark without one, the test checks that the pipeline is refused before Spark
starts with the message that names the newest release and why it cannot be
used, the behaviour docs/tables.md documents.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from connectors.table.jars import UnsupportedSparkError, format_bundle, spark_line
from smt.commands.output import EXIT_INVALID
from smt.errors import ConfigError
from smt.pipeline import PipelineSpec, run_pipeline
from tests.connectors.table.postgres import postgres  # noqa: F401 - the fixture

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tables"

EXPECTED = [
    (1, "****", decimal.Decimal("12.50"), "NL", dt.datetime(2024, 5, 1, 12, 0), ["book"]),
    (2, "****", decimal.Decimal("0.99"), "DE", dt.datetime(2024, 5, 1, 12, 1), ["pen", "ink"]),
    (3, "****", decimal.Decimal("1000.00"), "NL", dt.datetime(2024, 5, 1, 12, 2), []),
    (4, "****", decimal.Decimal("45.99"), "FR", dt.datetime(2024, 5, 1, 12, 3), ["lamp"]),
]


@pytest.fixture
def example(tmp_path) -> Path:
    folder = tmp_path / "tables"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("tables"))
    return folder


def test_orders_to_parquet(spark, example):
    run_pipeline(PipelineSpec.from_properties(example / "orders-to-parquet.properties"), spark=spark)
    table = spark.read.parquet(str(example / "tables" / "orders-parquet"))
    assert table.schema.simpleString() == (
        "struct<order_id:bigint,card:string,amount:decimal(38,2),placed:timestamp,items:array<string>,"
        "_topic:string,_offset:bigint,country:string>"
    )
    rows = table.orderBy("order_id").select("order_id", "card", "amount", "country", "placed", "items").collect()
    assert [tuple(r) for r in rows] == EXPECTED


def test_orders_backfill_reads_the_parquet_table_back_into_records(spark, example):
    run_pipeline(PipelineSpec.from_properties(example / "orders-to-parquet.properties"), spark=spark)
    run_pipeline(PipelineSpec.from_properties(example / "orders-backfill.properties"), spark=spark)
    folder = example / "tables" / "orders-backfill"
    records = [json.loads(line) for f in folder.glob("part-*") for line in f.read_text().splitlines()]
    assert {r["topic"] for r in records} == {"orders-backfill"}
    values = sorted((json.loads(r["value"]) for r in records), key=lambda v: v["payload"]["order_id"])
    assert [json.loads(r["key"]) for r in sorted(records, key=lambda r: r["key"])] == [
        {"order_id": i} for i in range(1, 5)
    ]
    # The table's columns, in its order (a partition column last), as the envelope's fields.
    assert [(f["field"], f["type"], f.get("name")) for f in values[0]["schema"]["fields"]] == [
        ("order_id", "int64", None),
        ("card", "string", None),
        ("amount", "bytes", "org.apache.kafka.connect.data.Decimal"),
        ("placed", "int64", "org.apache.kafka.connect.data.Timestamp"),
        ("items", "array", None),
        ("country", "string", None),
    ]
    assert values[0]["payload"] == {
        "order_id": 1,
        "card": "****",
        "amount": "BOI=",
        "placed": 1714564800000,
        "items": ["book"],
        "country": "NL",
    }


def _data_rows(folder: Path) -> list[tuple]:
    """The rows of a Delta or Iceberg table written once, read from its Parquet data files."""
    files = [f for f in folder.rglob("*.parquet") if "metadata" not in f.parts]
    rows = []
    for f in files:
        table = pq.read_table(f)
        country = next((p.split("=", 1)[1] for p in f.parts if p.startswith("country=")), None)
        for row in table.to_pylist():
            placed = row["placed"].replace(tzinfo=None)
            rows.append(
                (row["order_id"], row["card"], row["amount"], row.get("country", country), placed, row["items"])
            )
    return sorted(rows)


@pytest.mark.parametrize(
    ("fmt", "pipeline", "table_folder"),
    [
        ("delta", "orders-to-delta.properties", "tables/orders-delta"),
        ("iceberg", "orders-to-iceberg.properties", "tables/iceberg-warehouse/shop/orders"),
    ],
)
def test_orders_to_delta_and_iceberg(example, fmt, pipeline, table_folder):
    try:
        format_bundle(fmt)
    except UnsupportedSparkError:
        refusal = f"sink.format: Maven Central has no {fmt} release for Spark {spark_line()} .*newest"
        with pytest.raises(ConfigError, match=refusal):
            PipelineSpec.from_properties(example / pipeline)
        # smt validate refuses what smt run refuses, with the same reason.
        for command in ("validate", "run"):
            done = subprocess.run([sys.executable, "-m", "smt", command, pipeline], cwd=example, capture_output=True,
                                  text=True, timeout=300)  # fmt: skip
            assert done.returncode == EXIT_INVALID, (command, done.stderr[-3000:])
            assert re.search(refusal, done.stderr), (command, done.stderr[-3000:])
        return
    done = subprocess.run(
        [sys.executable, "-m", "smt", "run", "-q", pipeline], cwd=example, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert _data_rows(example / table_folder) == EXPECTED


CUSTOMERS = [
    [1, "Ada Lovelace", "****", "2024-05-02 09:00:00"],
    [3, "Cy", "****", "2024-05-01 12:02:00"],
    [4, "Di returns", "****", "2024-05-03 08:00:00"],
]


def test_cdc_upsert_example_into_delta_run_twice_holds_each_row_once(example):
    try:
        format_bundle("delta")
    except UnsupportedSparkError:
        with pytest.raises(
            ConfigError, match=f"sink.format: Maven Central has no delta release for Spark {spark_line()}"
        ):
            PipelineSpec.from_properties(example / "cdc-upsert-delta.properties")
        return
    table = f"delta.`{example / 'tables' / 'customers-delta'}`"
    query = f"SELECT id, name, email, CAST(updated_at AS STRING) FROM {table} ORDER BY id"
    done = subprocess.run(
        [sys.executable, "-m", "tests.connectors.table.run_and_query", "cdc-upsert-delta.properties", query, "2"],
        cwd=example, capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert [json.loads(line) for line in done.stdout.splitlines()] == CUSTOMERS


def test_debezium_example_unwraps_deletes_and_keeps_toasted_columns_in_delta_run_twice(tmp_path):
    example = tmp_path / "cdc"
    shutil.copytree(ROOT / "examples" / "cdc", example, ignore=shutil.ignore_patterns("tables"))
    table = f"delta.`{example / 'tables' / 'customers'}`"
    query = f"SELECT id, name, email, bio, __op, __source_ts_ms, __deleted FROM {table} ORDER BY id"
    done = subprocess.run(
        [sys.executable, "-m", "tests.connectors.table.run_and_query", "debezium-to-delta.properties", query, "2"],
        cwd=example, capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    # Row 2's delete (a soft delete, __deleted=true) deleted it; the updates of rows 1 and 3 won; row 1's
    # bio, unavailable in its update, kept the snapshot's value; the connector's tombstone was dropped.
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        [1, "Ada Lovelace", "****", "Wrote the first program.", "u", 1714565100000, "false"],
        [3, "Cy", "****", "Collects coins now.", "u", 1714565300000, "false"],
    ]


def test_cdc_upsert_example_into_postgresql(spark, example, postgres):  # noqa: F811
    overrides = {
        "sink.format": "jdbc",
        "sink.path": "",
        "sink.table": "cdc_customers",
        "sink.option.url": postgres.jdbc_url,
        "sink.option.user": "smt",
    }
    spec = PipelineSpec.from_properties(example / "cdc-upsert-delta.properties", overrides=overrides)
    result = run_pipeline(spec, spark=spark)
    assert (result.counts.read, result.counts.written) == (10, 10)
    rows = postgres.query(
        "SELECT id, name, email, to_char(updated_at, 'YYYY-MM-DD HH24:MI:SS') FROM cdc_customers ORDER BY id"
    )
    assert [[int(r[0]), *r[1:]] for r in rows] == CUSTOMERS
