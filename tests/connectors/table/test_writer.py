"""Streaming into one table from two queries (two pipelines, two checkpoints): each query commits
its own micro-batches, so both inputs end in the table (Spark numbers every query's batches from 0).

Parquet runs here on the shared session; Delta and Iceberg in a session of their own
(``run_and_query``), where the PySpark has their jars (``scripts/test-table-formats.sh``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from connectors.table.jars import UnsupportedSparkError, format_bundle
from smt.pipeline import run_pipeline
from tests.connectors.table.conftest import envelope_order
from tests.connectors.table.test_sigkill_recovery import ICEBERG_SINK
from tests.connectors.table.test_sink import table_pipeline

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[3]
#: Each query's input: different ids, so the table shows whose records are missing.
INPUTS = ([1, 2, 3], [11, 12])


def test_two_streaming_queries_into_one_parquet_table_write_both_inputs(spark, tmp_path, kafka_input):
    table = str(tmp_path / "t")
    for number, ids in enumerate(INPUTS):
        source = kafka_input([envelope_order(i, i) for i in ids])
        checkpoint = str(tmp_path / f"checkpoint-{number}")
        spec = table_pipeline(
            source, table, mode="streaming", checkpoint__location=checkpoint, streaming__trigger="availableNow"
        )
        run_pipeline(spec, spark=spark)
    assert sorted(r.order_id for r in spark.read.parquet(table).collect()) == [1, 2, 3, 11, 12]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["delta", "iceberg"])
def test_two_streaming_queries_into_one_delta_or_iceberg_table_write_both_inputs(tmp_path, fmt):
    try:
        format_bundle(fmt)
    except UnsupportedSparkError as exc:
        pytest.skip(f"{fmt} cannot run on this Spark ({exc}); the default install (PySpark 4.1.x) runs it")
    # Both queries run in one session: its Iceberg catalog must not answer the query from a table it cached.
    where = f"{ICEBERG_SINK}spark.sql.catalog.local.cache-enabled=false\n" if fmt == "iceberg" else "sink.path=orders\n"
    pipelines = []
    for number, ids in enumerate(INPUTS):
        folder = tmp_path / f"in-{number}"
        folder.mkdir()
        (folder / "orders.txt").write_bytes(b"".join(envelope_order(i, i) + b"\n" for i in ids))
        pipeline = tmp_path / f"pipeline-{number}.properties"
        pipeline.write_text(
            f"name=query-{number}\nmode=streaming\ncheckpoint.location=checkpoint-{number}\n"
            "streaming.trigger=availableNow\nspark.master=local[2]\nspark.ui.enabled=false\n"
            f"spark.sql.shuffle.partitions=2\nsource=file\nsource.path={folder.name}\nsource.format=text\n"
            f"value.converter=json\nsink=table\nsink.format={fmt}\n{where}",
            encoding="utf-8",
        )
        pipelines.append(pipeline.name)
    table = "local.shop.orders" if fmt == "iceberg" else f"delta.`{tmp_path / 'orders'}`"
    done = subprocess.run(
        [sys.executable, "-m", "tests.connectors.table.run_and_query", ",".join(pipelines),
         f"SELECT order_id FROM {table} ORDER BY order_id"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert [json.loads(line)[0] for line in done.stdout.splitlines()] == [1, 2, 3, 11, 12]
