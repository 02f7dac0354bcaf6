"""Kill -9 a streaming `smt run` into a table mid-stream, restart it: every record is in the table once.

A Parquet folder commits each micro-batch with the file sink's markers; Delta
through its idempotent writes (``txnAppId``/``txnVersion``); Iceberg by the
micro-batch id each snapshot records.  Records are
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


def write_orders(folder, first: int = 0, last: int = FILES) -> list[int]:
    """Order files ``first``..``last - 1`` in ``folder/in``; returns their ids."""
    (folder / "in").mkdir(exist_ok=True)
    ids = []
    for f in range(first, last):
        batch = [f * 100 + n for n in range(PER_FILE)]
        (folder / "in" / f"part{f:02d}.txt").write_bytes(b"".join(envelope_order(i, i) + b"\n" for i in batch))
        ids.extend(batch)
    return ids


ICEBERG_SINK = (
    "spark.sql.catalog.local=org.apache.iceberg.spark.SparkCatalog\nspark.sql.catalog.local.type=hadoop\n"
    "spark.sql.catalog.local.warehouse=warehouse\nsink.table=local.shop.orders\nsink.table.auto.create=true\n"
)


def pipeline(folder, fmt: str):
    path = folder / "pipeline.properties"
    where = ICEBERG_SINK if fmt == "iceberg" else "sink.path=orders\n"
    path.write_text(
        "name=table-recovery\nmode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
        "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
        "source=file\nsource.path=in\nsource.format=text\nsource.max.files.per.trigger=1\n"
        "value.converter=json\n"
        f"sink=table\nsink.format={fmt}\n{where}",
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


def iceberg_ids(table, base) -> list[int]:
    """The ids in the data files of the table's current snapshot (its manifests, read with fastavro);
    relative locations are relative to ``base``, where the pipeline ran."""
    import fastavro

    def local(uri: str):
        return base / uri.removeprefix("file:")

    metadata_files = sorted((table / "metadata").glob("v*.metadata.json"), key=lambda p: int(p.name[1:].split(".")[0]))
    metadata = json.loads(metadata_files[-1].read_text())
    snapshot = next(s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"])
    ids = []
    with open(local(snapshot["manifest-list"]), "rb") as handle:
        manifests = [m["manifest_path"] for m in fastavro.reader(handle)]
    for manifest in manifests:
        with open(local(manifest), "rb") as handle:
            for entry in fastavro.reader(handle):
                if entry["status"] != 2:  # 2: deleted
                    ids += pq.read_table(local(entry["data_file"]["file_path"])).column("order_id").to_pylist()
    return sorted(ids)


@pytest.mark.parametrize("fmt", ["parquet", "delta", "iceberg"])
def test_a_table_sink_killed_mid_stream_holds_every_record_once(tmp_path, pytestconfig, fmt):
    if fmt != "parquet":
        try:
            format_bundle(fmt)
        except UnsupportedSparkError as exc:
            pytest.skip(f"{fmt} cannot run on this Spark ({exc}); scripts/test-table-formats.sh runs it on one it can")
    root = str(pytestconfig.rootpath)
    expected = write_orders(tmp_path, last=4)  # the first run's input: four micro-batches
    file = pipeline(tmp_path, fmt)
    kill_mid_stream(
        file,
        root,
        lambda: listed(tmp_path / "checkpoint" / "commits", str.isdigit),
        lambda: expected.extend(write_orders(tmp_path, first=4)),
    )

    code, stderr = run_to_the_end(file, root)
    assert code == 0, stderr[-3000:]
    if fmt == "iceberg":
        ids = iceberg_ids(tmp_path / "warehouse" / "shop" / "orders", tmp_path)
    else:
        ids = parquet_ids(tmp_path / "orders") if fmt == "parquet" else delta_ids(tmp_path / "orders")
    assert ids == sorted(expected)
