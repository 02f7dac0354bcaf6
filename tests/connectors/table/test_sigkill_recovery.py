"""Kill -9 a streaming `smt run` into a table mid-stream, restart it: every record is in the table once.

A Parquet folder commits each micro-batch with the file sink's markers; Delta
through its idempotent writes (``txnAppId``/``txnVersion``).  Records are
told apart by unique ids, as the reliability suite does for files.
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from connectors.table.jars import UnsupportedSparkError, format_bundle
from tests.connectors.table.conftest import envelope_order
from tests.reliability.test_sigkill_recovery import kill_mid_stream, listed, run_to_the_end

pytestmark = [pytest.mark.spark, pytest.mark.slow]

FILES, PER_FILE = 8, 20


def write_orders(folder) -> list[int]:
    (folder / "in").mkdir()
    ids = []
    for f in range(FILES):
        batch = [f * 100 + n for n in range(PER_FILE)]
        (folder / "in" / f"part{f:02d}.txt").write_bytes(b"".join(envelope_order(i, i) + b"\n" for i in batch))
        ids.extend(batch)
    return ids


def pipeline(folder, fmt: str):
    path = folder / "pipeline.properties"
    path.write_text(
        "name=table-recovery\nmode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
        "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
        "source=file\nsource.path=in\nsource.format=text\nsource.max.files.per.trigger=1\n"
        "value.converter=json\n"
        f"sink=table\nsink.format={fmt}\nsink.path=orders\n",
        encoding="utf-8",
    )
    return path


def parquet_ids(table) -> list[int]:
    names = listed(table, lambda name: name.endswith(".parquet"))
    return sorted(i for name in names for i in pq.read_table(table / name).column("order_id").to_pylist())


def delta_ids(table) -> list[int]:
    """The ids in the files Delta's log holds (a killed attempt's stray files are not in it)."""
    live = set()
    for log in sorted((table / "_delta_log").glob("*.json")):
        for line in log.read_text().splitlines():
            action = json.loads(line)
            if "add" in action:
                live.add(action["add"]["path"])
            if "remove" in action:
                live.discard(action["remove"]["path"])
    return sorted(i for path in live for i in pq.read_table(table / path).column("order_id").to_pylist())


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_a_table_sink_killed_mid_stream_holds_every_record_once(tmp_path, pytestconfig, fmt):
    if fmt == "delta":
        try:
            format_bundle("delta")
        except UnsupportedSparkError as exc:
            pytest.skip(f"Delta cannot run on this Spark: {exc}")
    root = str(pytestconfig.rootpath)
    expected = write_orders(tmp_path)
    file = pipeline(tmp_path, fmt)
    kill_mid_stream(file, root, lambda: listed(tmp_path / "checkpoint" / "commits", str.isdigit), batches=FILES)

    code, stderr = run_to_the_end(file, root)
    assert code == 0, stderr[-3000:]
    ids = parquet_ids(tmp_path / "orders") if fmt == "parquet" else delta_ids(tmp_path / "orders")
    assert ids == sorted(expected)
