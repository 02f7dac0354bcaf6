"""A real change stream: PostgreSQL → Debezium's connector in a Kafka Connect worker → Kafka → `smt run` → PostgreSQL.

Debezium 3.6.1's PostgreSQL connector (pgoutput) runs in a standalone Kafka Connect 4.1.1 worker
(:mod:`smt.local.debezium`) on the session's broker; `smt run` streams its topic through
Debezium's ExtractNewRecordState (deletes rewritten as ``__deleted``) and Kafka's MaskField into a
PostgreSQL table by upsert.  Inserts, updates, deletes and an ``ALTER TABLE ... ADD COLUMN`` are
driven while it runs; `smt run` is SIGKILLed once mid-stream and started again from its
checkpoint.  The copy must equal the source table row for row, the masked column masked.  Then,
where Delta runs, the same topic goes into a Delta table (examples/cdc/debezium-kafka-to-delta.properties,
availableNow: one more Spark start), which must equal the source table too.

Time budget: 2.5 minutes measured on 2 cores shared with four other jobs (two Spark starts, one worker JVM), the
Delta leg about 15 s more (measured under a load average of 15: 3 min 48 s without it, 3 min 55 s with it);
bounded at 6 minutes (a hang: under a load average of 16 it took 4 min 39 s).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from connectors.table.jars import UnsupportedSparkError, format_bundle
from smt.local.debezium import DebeziumWorker, PostgresSource
from smt.local.postgres import LocalPostgres
from tests.connectors.table.delta_log import delta_live_rows
from tests.reliability.conftest import smt_process

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(360)]

MASK = "****"
EXAMPLE = Path(__file__).parents[2] / "examples" / "cdc" / "debezium-kafka-to-postgres.properties"
DELTA_EXAMPLE = EXAMPLE.with_name("debezium-kafka-to-delta.properties")
#: How long one stage may take (a bound for a hang, not a race).
STAGE_S = 90


@pytest.fixture(scope="module")
def database():
    folder = Path(tempfile.mkdtemp(prefix="smt-debezium-pg-"))
    folder.chmod(0o755)  # the server may run as the postgres user
    server = LocalPostgres(folder, user="smt")  # what `smt local postgres start` runs: logical decoding on
    server.start(port=0)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def debezium(tmp_path, kafka_broker, database):
    """Debezium streaming ``public.customers`` (created with 20 rows) to ``<prefix>.public.customers``."""
    database.query("drop table if exists customers; drop table if exists replica;")
    database.query("create table customers (id int primary key, name text not null, email text)")
    database.query(
        "insert into customers select n, 'name-' || n, 'user' || n || '@example.com' from generate_series(1, 20) n"
    )
    prefix = kafka_broker.unique_topic("dbz").replace("-", "_")
    worker = DebeziumWorker(tmp_path / "debezium")
    worker.start(kafka_broker.bootstrap_servers, PostgresSource(port=database.port, tables=("public.customers",),
                                                                user="smt", topic_prefix=prefix), name=prefix)  # fmt: skip
    try:
        worker.wait_until_streaming(STAGE_S)
        yield f"{prefix}.public.customers"
    finally:
        worker.stop()
        database.query(
            f"select pg_drop_replication_slot('{prefix}') from pg_replication_slots where slot_name = '{prefix}'"
        )


def pipeline(folder: Path, bootstrap_servers: str, topic: str, database: LocalPostgres) -> list[str]:
    """`smt run` of the example, on this test's broker, topic and database."""
    overrides = {
        "source.kafka.bootstrap.servers": bootstrap_servers, "source.topics": topic,
        "sink.option.url": database.jdbc_url(), "sink.option.user": database.user,
        "checkpoint.location": str(folder / "checkpoint"),  # relative paths are the file's "streaming.trigger": "processingTime",
        "streaming.trigger.interval.ms": "1000", "spark.sql.shuffle.partitions": "2",
    }  # fmt: skip
    return ["run", str(EXAMPLE), *(arg for key, value in overrides.items() for arg in ("--set", f"{key}={value}"))]


def delta_pipeline(folder: Path, bootstrap_servers: str, topic: str) -> list[str]:
    """`smt run` of the Delta example (availableNow: it ends once the topic is merged) on this test's topic."""
    overrides = {
        "source.kafka.bootstrap.servers": bootstrap_servers, "source.topics": topic,
        "sink.path": str(folder / "customers-delta"), "checkpoint.location": str(folder / "delta-checkpoint"),
        "spark.sql.shuffle.partitions": "2",
    }  # fmt: skip
    return [
        "run",
        str(DELTA_EXAMPLE),
        *(arg for key, value in overrides.items() for arg in ("--set", f"{key}={value}")),
    ]


def delta_table(table: Path) -> list[list[str | None]]:
    """The rows (id, name, email, tier) of the files Delta's log holds, read without Spark, as psql prints them."""
    rows = delta_live_rows(table)
    assert all(row.get("__deleted") in (None, "false") for row in rows), "a deleted row is left in the table"
    found = [[str(row["id"]), row["name"], row["email"], row.get("tier")] for row in rows]
    return [[value if value is not None else "" for value in row] for row in sorted(found, key=lambda r: int(r[0]))]


def wait_until(process: subprocess.Popen, condition, what: str) -> None:
    deadline = time.monotonic() + STAGE_S
    while not condition():
        if process.poll() is not None:
            _, stderr = process.communicate()
            raise AssertionError(f"`smt run` ended before {what}: {stderr[-3000:]}")
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


def planned_batches(folder: Path) -> set[str]:
    """The micro-batches Spark's checkpoint has planned (its offset log)."""
    offsets = folder / "checkpoint" / "offsets"
    return {name for name in os.listdir(offsets) if name.isdigit()} if offsets.is_dir() else set()


def replica_has(database: LocalPostgres, where: str) -> bool:
    try:
        return database.query(f"select count(*) from replica where {where}") != [["0"]]
    except subprocess.CalledProcessError:  # no table, or no such column, yet
        return False


def test_a_debezium_stream_replicated_through_a_sigkill_equals_its_source(tmp_path, pytestconfig, kafka_broker,
                                                                         database, debezium):  # fmt: skip
    root = str(pytestconfig.rootpath)
    run = pipeline(tmp_path, kafka_broker.bootstrap_servers, debezium, database)
    first = smt_process(run, tmp_path, root)
    try:
        wait_until(first, lambda: replica_has(database, "id = 20"), "the snapshot reached the replica")
        database.query("update customers set name = name || '-v2' where id % 3 = 0")
        database.query("delete from customers where id in (4, 5, 6)")
        database.query("insert into customers values (100, 'marker-1', 'm1@example.com')")
        wait_until(first, lambda: replica_has(database, "id = 100"), "the first changes reached the replica")
        database.query("update customers set email = 'new' || id || '@example.com' where id % 2 = 0")
        database.query("insert into customers select n, 'late-' || n, null from generate_series(21, 30) n")
        os.killpg(first.pid, signal.SIGKILL)  # mid-stream: the last changes are on their way
        first.wait(30)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    # While `smt run` is down: a new column, its values, more deletes and updates.
    database.query("alter table customers add column tier text")
    database.query("update customers set tier = case when id % 2 = 0 then 'gold' else 'silver' end where id > 10")
    database.query("delete from customers where id in (7, 21)")
    database.query("update customers set name = name || '-v3' where id in (1, 2, 30)")
    database.query("insert into customers values (200, 'marker-2', 'm2@example.com', 'bronze')")

    planned = planned_batches(tmp_path)
    second = smt_process(run, tmp_path, root)
    try:
        # Once the restarted run has planned a micro-batch, one more change, made while it runs, marks the end.
        wait_until(second, lambda: planned_batches(tmp_path) - planned,
                   "the restarted run planned a micro-batch")  # fmt: skip
        database.query("insert into customers values (300, 'marker-3', null, 'gold')")
        wait_until(second, lambda: replica_has(database, "id = 300"), "the last change reached the replica")
    finally:
        os.killpg(second.pid, signal.SIGKILL)
        second.wait(30)
    source = database.query(f"select id, name, case when email is null then null else '{MASK}' end, tier "
                            "from customers order by id")  # fmt: skip
    replica = database.query("select id, name, email, tier from replica order by id")
    assert len(source) == 20 - 3 + 1 + 10 - 2 + 1 + 1
    assert replica == source

    # The same topic into Delta, where Delta runs: a run that merges what is on the topic and ends.
    try:
        format_bundle("delta")
    except UnsupportedSparkError as exc:
        pytest.skip(f"the Delta leg: delta cannot run on this Spark ({exc}); the PostgreSQL leg passed")
    merge = smt_process(delta_pipeline(tmp_path, kafka_broker.bootstrap_servers, debezium), tmp_path, root)
    try:
        _, stderr = merge.communicate(timeout=STAGE_S)
    finally:
        if merge.poll() is None:
            os.killpg(merge.pid, signal.SIGKILL)
    assert merge.returncode == 0, stderr[-3000:]
    assert delta_table(tmp_path / "customers-delta") == source
