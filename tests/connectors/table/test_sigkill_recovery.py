"""Kill -9 a streaming `smt run` into a table mid-stream, restart it: every record is in the table once.

A Parquet folder commits each micro-batch with the file sink's markers; Delta
through its idempotent writes (``txnAppId``/``txnVersion``); Iceberg by the
micro-batch id each snapshot records.  Records are
told apart by unique ids, as the reliability suite does for files.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess

import pyarrow.parquet as pq
import pytest

from connectors.table.jars import UnsupportedSparkError, format_bundle
from tests.connectors.table.conftest import envelope_order
from tests.connectors.table.delta_log import delta_live_rows
from tests.connectors.table.postgres import postgres  # noqa: F401 - the fixture
from tests.reliability.conftest import smt_process
from tests.reliability.test_exactly_once import wait_for
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
            pytest.skip(f"{fmt} cannot run on this Spark ({exc}); the default install (PySpark 4.1.x) runs it")
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


# --- upserts (change data capture) killed between a micro-batch's data commit and Spark's commit log ----

CDC_BATCHES, CDC_KEYS, CDC_PER_BATCH = 3, 40, 30
#: Each micro-batch inserts the key ``MARK + batch`` (never deleted): the table shows which batches it holds.
MARK = 1_000


def cdc_inputs(folder) -> tuple[list[list], list[str]]:
    """Change files in ``folder/in``, one per micro-batch: inserts, updates and tombstones of random ids
    (an id often more than once in a batch), a marker row, and one record without a key (dead-lettered).
    Returns the table the changes leave (last write per key, deleted keys absent) and the dead letters."""
    from tests.connectors.table.test_upsert import VALUE_FIELDS, change_line, envelope

    rng = random.Random(20)
    (folder / "in").mkdir()
    table: dict[int, list] = {}
    dead = []
    for batch in range(CDC_BATCHES):
        lines = []
        for n in range(CDC_PER_BATCH):
            cid = rng.randrange(CDC_KEYS)
            if rng.random() < 0.3:
                lines.append(change_line(cid))  # a tombstone: deletes the row
                table.pop(cid, None)
            else:
                name, score = f"c{cid}-b{batch}-{n}", batch * 100 + n
                lines.append(change_line(cid, name, score))
                table[cid] = [cid, name, score]
        lines.append(change_line(MARK + batch, f"mark-{batch}", batch))
        table[MARK + batch] = [MARK + batch, f"mark-{batch}", batch]
        unkeyed = {"id": 2_000 + batch, "name": "no key", "score": 0}
        lines.insert(
            rng.randrange(len(lines)),
            json.dumps({"topic": "customers", "value": envelope(VALUE_FIELDS, unkeyed)}) + "\n",
        )
        dead.append(unkeyed["name"] + str(unkeyed["id"]))
        part = folder / "in" / f"part{batch}.jsonl"
        part.write_text("".join(lines), encoding="utf-8")
        os.utime(part, (1_700_000_000 + batch, 1_700_000_000 + batch))  # the order the stream reads them
    return sorted(table.values()), sorted(dead)


def cdc_pipeline(folder, where: str):
    path = folder / "pipeline.properties"
    path.write_text(
        "name=upsert-recovery\nmode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
        "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
        "source=file\nsource.path=in\nsource.format=jsonl\nsource.max.files.per.trigger=1\n"
        "key.converter=json\nvalue.converter=json\nerrors.tolerance=all\nerrors.deadletterqueue.path=dlq\n"
        f"sink=table\nsink.write.mode=upsert\n{where}",
        encoding="utf-8",
    )
    return path


def kill_after_a_data_commit(pipeline, root, committed) -> int:
    """Run the pipeline and SIGKILL it after a micro-batch's data is committed into the table
    (``committed(batch)``) and before Spark's commit log holds the batch; returns the batch.

    The process group is frozen (SIGSTOP) as soon as the data is seen, so the look at the
    commit log cannot race it; when the entry is there already, the run goes on (SIGCONT) to the
    next batch.  The dead-letter queue is written between the two, which keeps the window open.
    """
    process = smt_process(["run", str(pipeline), "--set", "streaming.trigger=processingTime"], pipeline.parent, root)
    try:
        for batch in range(CDC_BATCHES - 1):
            wait_for(process, lambda batch=batch: committed(batch), f"micro-batch {batch}'s data commit")
            os.killpg(process.pid, signal.SIGSTOP)
            if not (pipeline.parent / "checkpoint" / "commits" / str(batch)).exists():
                return batch
            os.killpg(process.pid, signal.SIGCONT)
        raise AssertionError("no micro-batch was caught between its data commit and Spark's commit log")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)


def delta_rows(table) -> list[list]:
    """The rows (id, name, score) of the files Delta's log holds (read without Spark)."""
    return sorted([row["id"], row["name"], row["score"]] for row in delta_live_rows(table))


def dead_letters(folder) -> list[str]:
    found = []
    for name in listed(folder, lambda name: not name.startswith(("_", "."))):
        for line in (folder / name).read_text(encoding="utf-8").splitlines():
            value = json.loads(json.loads(line)["value"])["payload"]
            found.append(value["name"] + str(value["id"]))
    return sorted(found)


@pytest.mark.parametrize("fmt", ["postgresql", "delta"])
def test_an_upsert_killed_after_a_data_commit_ends_as_the_changes_say(tmp_path, pytestconfig, fmt, request):
    """A replayed micro-batch of inserts, updates and tombstones leaves the table as merging it once."""
    if fmt == "delta":
        try:
            format_bundle(fmt)
        except UnsupportedSparkError as exc:
            pytest.skip(f"{fmt} cannot run on this Spark ({exc}); the default install (PySpark 4.1.x) runs it")
        where = "sink.format=delta\nsink.path=customers\n"
        table = tmp_path / "customers" / "_delta_log"

        def committed(batch: int) -> bool:
            return (table / f"{batch:020d}.json").exists()  # micro-batch n commits the table's version n

        def rows() -> list[list]:
            return delta_rows(tmp_path / "customers")
    else:
        postgres = request.getfixturevalue("postgres")
        where = (
            f"sink.format=jdbc\nsink.table=customers_killed\nsink.option.url={postgres.jdbc_url}\n"
            "sink.option.user=smt\nsink.option.driver=org.postgresql.Driver\n"
        )

        def committed(batch: int) -> bool:
            try:
                found = postgres.query(f"select count(*) from customers_killed where id >= {MARK}")
            except subprocess.CalledProcessError:  # no table yet
                return False
            return int(found[0][0]) > batch

        def rows() -> list[list]:
            found = postgres.query("select id, name, score from customers_killed order by id")
            return sorted([int(i), name, int(score)] for i, name, score in found)

    expected, unkeyed = cdc_inputs(tmp_path)
    pipeline = cdc_pipeline(tmp_path, where)
    killed_at = kill_after_a_data_commit(pipeline, str(pytestconfig.rootpath), committed)

    code, stderr = run_to_the_end(pipeline, str(pytestconfig.rootpath))
    assert code == 0, stderr[-3000:]
    assert rows() == expected, f"killed after micro-batch {killed_at}'s data commit"
    assert dead_letters(tmp_path / "dlq") == unkeyed
    if fmt == "delta":  # the killed micro-batch was merged again: one table version more than batches
        assert len(list(table.glob("*.json"))) == CDC_BATCHES + 1
