"""Kafka → Wasm + built-ins → Kafka with ``sink.delivery.guarantee=exactly_once``, through failures.

A streaming `smt run` (Kafka source, a ReplaceField that fails on non-JSON-
object values, the Wasm ``to_upper`` guest, a RegexRouter that routes records
with a ``route`` header to a second topic, a dead-letter topic) is killed
with SIGKILL at four micro-batches drawn at random, once at each point (a
batch just planned, a batch half-written inside its transactions, a batch
with one task's transaction committed and the others not, a batch just
committed), in a random order, and restarted from its checkpoint each time;
once, every Python worker is killed mid-batch instead (Spark retries the
tasks); once the broker
is stopped and started again while one task of a micro-batch has committed
and the other may be inside its transaction, and the run goes on; before the
last run a zombie attempt of task 0 opens a transaction and writes records
that must never show.  Each kill and the restart wait for their event (files
of the checkpoint, the topics' log end offsets, the tasks' markers), never
for a clock.

The zombie is made by hand (a ``TaskTransaction`` with task 0's
transactional id, opened by the test), not by Spark: Spark runs a
speculative second attempt of a task only off local mode
(``TaskSchedulerImpl`` starts its speculation thread only when the master is
not ``local[...]``), and never on a host that already runs an attempt of the
task (``TaskSetManager.hasAttemptOnHost``), which rules out
``local-cluster[...]`` on one machine too.

The oracle is a ``read_committed`` consumer: every input id is found exactly
once across the two output topics and the dead-letter topic, in input order
per partition (the chain keeps the partition).  The same pipeline with
``at_least_once``, killed once half-way through writing a batch, shows the
duplicates that exactly-once removes.
"""

from __future__ import annotations

import collections
import json
import os
import random
import signal
import time
from pathlib import Path

import pytest

from connectors.kafka import KafkaWriteError
from connectors.kafka._transactional import TaskTransaction
from smt.benchmarks.wasm import TO_UPPER_WAT
from tests.reliability.conftest import RUN_BOUND_SECONDS, smt_process

pytestmark = [pytest.mark.spark, pytest.mark.kafka, pytest.mark.slow]

PARTITIONS = 2
RECORDS = 200_000
PER_TRIGGER = 10_000  # 20 micro-batches
#: Where the driver is killed: each point once, in a random order.
DRIVER_KILLS = ("planned", "writing", "task committed", "committed")
#: The worker kill and the broker restart come between the driver kills.
KILLS = len(DRIVER_KILLS) + 2
BAD_EVERY = 50  # a JSON string instead of an object: dead-lettered
ROUTE_EVERY = 3  # a "route" header: the second output topic
_POLL_S = 0.02


def record_id(partition: int, seq: int) -> str:
    return f"p{partition}-{seq:06d}"


def inputs(records: int) -> list[dict]:
    rows = []
    for n in range(records):
        partition, seq = n % PARTITIONS, n // PARTITIONS
        ident = record_id(partition, seq)
        value = json.dumps(f"bad:{ident}") if n % BAD_EVERY == 0 else json.dumps({"id": ident})
        headers = [("route", b"b")] if n % ROUTE_EVERY == 0 else []
        rows.append({"value": value, "partition": partition, "headers": headers})
    return rows


class Flow:
    """One pipeline's topics, folder and pipeline file."""

    def __init__(self, broker, folder: Path, guarantee: str, records: int, per_trigger: int) -> None:
        self.broker = broker
        self.folder = folder
        stem = broker.unique_topic(f"eos-{guarantee.replace('_', '-')}")
        self.prefix = stem
        self.source = broker.create_topic(f"{stem}-in", partitions=PARTITIONS)
        self.outputs = [broker.create_topic(f"{stem}-{name}", partitions=PARTITIONS) for name in ("a", "b", "dlq")]
        broker.produce(self.source, inputs(records))
        guest = folder / "to_upper.wat"
        guest.write_text(TO_UPPER_WAT, encoding="utf-8")
        servers = broker.bootstrap_servers
        out_a, out_b, dlq = self.outputs
        guarantee_keys = f"sink.delivery.guarantee={guarantee}\n"
        if guarantee == "exactly_once":
            guarantee_keys += f"sink.transactional.id.prefix={stem}\n"
        self.pipeline = folder / "pipeline.properties"
        self.pipeline.write_text(
            "name=exactly-once\nmode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
            "spark.master=local[2,4]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
            f"source=kafka\nsource.topics={self.source}\nsource.kafka.bootstrap.servers={servers}\n"
            f"source.max.offsets.per.trigger={per_trigger}\n"
            f"sink=kafka\nsink.topic={out_a}\nsink.kafka.bootstrap.servers={servers}\nsink.keep.partition=true\n"
            + guarantee_keys
            + "value.converter=json\nvalue.converter.schemas.enable=false\n"
            "transforms=check,upper,route\n"
            "transforms.check.type=org.apache.kafka.connect.transforms.ReplaceField$Value\n"
            "transforms.check.exclude=unused\n"
            f"transforms.upper.type=wasm\ntransforms.upper.module.path={guest}\n"
            "transforms.upper.function.name=to_upper\n"
            "transforms.upper.value.converter=json\ntransforms.upper.value.converter.schemas.enable=false\n"
            f"transforms.route.type=RegexRouter\ntransforms.route.regex=.*\ntransforms.route.replacement={out_b}\n"
            "transforms.route.predicate=routed\n"
            "predicates=routed\npredicates.routed.type=HasHeaderKey\npredicates.routed.name=route\n"
            f"errors.tolerance=all\nerrors.deadletterqueue.topic.name={dlq}\n",
            encoding="utf-8",
        )
        from confluent_kafka import Consumer

        self._markers: list = []
        self._ends = Consumer({"bootstrap.servers": servers, "group.id": f"{stem}-ends",
                               "isolation.level": "read_uncommitted"})  # fmt: skip

    def start(self, root: str):
        return smt_process(["run", str(self.pipeline)], self.folder, root)

    def checkpoint_files(self, kind: str) -> set[int]:
        folder = self.folder / "checkpoint" / kind
        return {int(name) for name in os.listdir(folder) if name.isdigit()} if folder.exists() else set()

    def log_ends(self) -> int:
        """Everything in the output topics' logs, committed or not (the transactions' markers too)."""
        from confluent_kafka import TopicPartition

        return sum(
            self._ends.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
            for topic in self.outputs
            for p in range(PARTITIONS)
        )

    def task_committed(self, batch: int) -> bool:
        """Whether a task's transaction of micro-batch ``batch`` committed (its marker names the batch)."""
        from confluent_kafka import Consumer, TopicPartition

        if not self._markers:
            self._markers = [Consumer({"bootstrap.servers": self.broker.bootstrap_servers,
                                       "group.id": f"{self.prefix}-{task}"}) for task in range(PARTITIONS)]  # fmt: skip
        for consumer in self._markers:
            marker = consumer.committed([TopicPartition("smt-transaction-markers", 0)], timeout=10)[0]
            if marker.offset >= 0 and (marker.metadata or "").split("/")[1:2] == [str(batch)]:  # <run>/<batch>/<tasks>
                return True
        return False

    def read_committed(self) -> dict[str, list]:
        return {topic: self.broker.consume(topic) for topic in self.outputs}

    def close(self) -> None:
        for consumer in [self._ends, *self._markers]:
            consumer.close()


def wait_for(process, condition, what: str) -> None:
    deadline = time.monotonic() + RUN_BOUND_SECONDS
    while not condition():
        if process.poll() is not None:
            _, stderr = process.communicate()
            raise AssertionError(f"the run ended before {what}: {stderr[-3000:]}")
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(_POLL_S)


def kill_at(flow: Flow, root: str, event: str, batch: int) -> None:
    """Start the pipeline and SIGKILL its process group when ``event`` happens to micro-batch ``batch``."""
    process = flow.start(root)
    try:
        wait_for(process, lambda: batch in flow.checkpoint_files("offsets"), f"micro-batch {batch} was planned")
        if event == "writing":
            planned = flow.log_ends()
            wait_for(process, lambda: flow.log_ends() > planned or batch in flow.checkpoint_files("commits"),
                     f"micro-batch {batch} wrote")  # fmt: skip
        elif event == "task committed":  # a replay must skip that task
            wait_for(process, lambda: flow.task_committed(batch) or batch in flow.checkpoint_files("commits"),
                     f"a task of micro-batch {batch} committed")  # fmt: skip
        elif event == "committed":
            wait_for(process, lambda: batch in flow.checkpoint_files("commits"), f"micro-batch {batch} committed")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)


def restart_broker_mid_batch(flow: Flow, root: str, batch: int) -> None:
    """Restart the broker once a task of micro-batch ``batch`` committed (the other may be in its
    transaction); the run must go on and commit the next micro-batch; stop it then."""
    process = flow.start(root)
    try:
        wait_for(process, lambda: flow.task_committed(batch) or batch in flow.checkpoint_files("commits"),
                 f"a task of micro-batch {batch} committed")  # fmt: skip
        flow.broker.restart()
        wait_for(process, lambda: batch + 1 in flow.checkpoint_files("commits"),
                 f"micro-batch {batch + 1} committed after the broker restarted")  # fmt: skip
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)


def python_workers(group: int) -> list[int]:
    """The Python workers of the Spark JVM in process group ``group``: the children of its
    ``pyspark.daemon`` (which puts itself in a process group of its own)."""
    processes = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{name}/cmdline").read_bytes()
            stat = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        processes[int(name)] = (int(stat[1]), int(stat[2]), command)  # parent, group, command line
    in_group = {pid for pid, (_, pgrp, _) in processes.items() if pgrp == group}
    daemons = {pid for pid, (parent, _, command) in processes.items()
               if parent in in_group and b"pyspark.daemon" in command}  # fmt: skip
    return [pid for pid, (parent, _, _) in processes.items() if parent in daemons]


def kill_workers_mid_batch(flow: Flow, root: str, batch: int) -> None:
    """Kill every Python worker while micro-batch ``batch`` writes; Spark retries its tasks; stop after it."""
    process = flow.start(root)
    try:
        wait_for(process, lambda: batch in flow.checkpoint_files("offsets"), f"micro-batch {batch} was planned")
        planned = flow.log_ends()
        wait_for(process, lambda: flow.log_ends() > planned, f"micro-batch {batch} wrote")
        workers = python_workers(process.pid)
        assert workers, "no Python worker to kill"
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        wait_for(process, lambda: batch in flow.checkpoint_files("commits"), f"micro-batch {batch} committed")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)


def run_to_the_end(flow: Flow, root: str) -> str:
    process = flow.start(root)
    _, stderr = process.communicate(timeout=RUN_BOUND_SECONDS)
    assert process.returncode == 0, stderr[-3000:]
    return stderr


def identity(value: bytes) -> str:
    """The input id a written record carries: ``{"ID": "P0-000001"}`` (upper-cased) or ``"bad:p0-000001"``."""
    parsed = json.loads(value)
    if isinstance(parsed, dict) and "ID" in parsed:
        return parsed["ID"].lower()
    if isinstance(parsed, str) and parsed.startswith("bad:"):
        return parsed.removeprefix("bad:")
    raise AssertionError(f"a record no input has: {value!r}")


def found_ids(written: dict[str, list]) -> collections.Counter:
    return collections.Counter(identity(record.value) for records in written.values() for record in records)


def expected_ids(records: int) -> set[str]:
    return {record_id(n % PARTITIONS, n // PARTITIONS) for n in range(records)}


# Seven Spark start-ups: a few minutes on a quiet 2-core machine, more than the default 600 s on a busy one.
@pytest.mark.timeout(1800)
def test_exactly_once_through_driver_kills_a_worker_kill_a_broker_restart_and_a_zombie(
    kafka_broker, tmp_path, pytestconfig
):
    root = str(pytestconfig.rootpath)
    flow = Flow(kafka_broker, tmp_path, "exactly_once", RECORDS, PER_TRIGGER)
    seed = random.randrange(1 << 30)
    chooser = random.Random(seed)
    batches = RECORDS // PER_TRIGGER
    kills = sorted(chooser.sample(range(batches - 2), KILLS))
    driver = chooser.sample(DRIVER_KILLS, len(DRIVER_KILLS))
    events = [*driver[:2], "workers", "broker", *driver[2:]]
    print(f"seed {seed}: kills at {list(zip(kills, events))}")
    try:
        for batch, event in zip(kills, events):
            if event == "workers":
                kill_workers_mid_batch(flow, root, batch)
            elif event == "broker":
                restart_broker_mid_batch(flow, root, batch)
            else:
                kill_at(flow, root, event, batch)

        # A hung attempt of task 0, from before the restart: it writes but must never commit.
        zombie = TaskTransaction({"bootstrap.servers": kafka_broker.bootstrap_servers}, f"{flow.prefix}-0",
                                 "smt-transaction-markers", "zombie/0")  # fmt: skip
        assert zombie.begin()
        zombie_rows = [{"value": json.dumps({"ID": "ZOMBIE"}), "partition": 0, "headers": []}] * 50
        zombie.producer.produce(flow.outputs[0], zombie_rows[0]["value"].encode(), partition=0)
        zombie.producer.flush(30)
        run_to_the_end(flow, root)
        with pytest.raises(KafkaWriteError, match=r"fenced while committing"):
            zombie.commit(0)
        zombie.close()

        written = flow.read_committed()
    finally:
        flow.close()
    found = found_ids(written)
    expected = expected_ids(RECORDS)
    missing = expected - set(found)
    twice = {ident: count for ident, count in found.items() if count > 1}
    print(f"exactly_once: {sum(found.values())} records read back for {len(expected)} ids; "
          f"{len(missing)} missing, {len(twice)} more than once, {len(set(found) - expected)} unknown")  # fmt: skip
    assert not missing, f"lost: {sorted(missing)[:5]}"
    assert not twice, f"written more than once: {sorted(twice.items())[:5]}"
    assert set(found) == expected, f"records no run read: {sorted(set(found) - expected)[:5]}"
    dead = {identity(r.value) for r in written[flow.outputs[2]]}
    assert len(dead) == RECORDS // BAD_EVERY
    for records in written.values():  # input order, per output partition (the chain keeps the partition)
        by_partition = collections.defaultdict(list)
        for record in records:
            ident = identity(record.value)
            assert ident.startswith(f"p{record.partition}-"), "each record keeps its input partition"
            by_partition[record.partition].append(ident)
        for idents in by_partition.values():
            assert idents == sorted(idents), "records are in input order per partition"


def test_at_least_once_killed_mid_write_shows_the_duplicates(kafka_broker, tmp_path, pytestconfig):
    records = 20_000
    root = str(pytestconfig.rootpath)
    flow = Flow(kafka_broker, tmp_path, "at_least_once", records, records)
    try:
        kill_at(flow, root, "writing", 0)
        assert 0 not in flow.checkpoint_files("commits"), "the kill must land before micro-batch 0 committed"
        run_to_the_end(flow, root)
        found = found_ids(flow.read_committed())
    finally:
        flow.close()
    twice = sum(1 for count in found.values() if count > 1)
    print(f"at_least_once: {sum(found.values())} records read back for {records} ids; {twice} more than once")
    assert set(found) == expected_ids(records), "nothing is lost"
    assert twice > 0, "the records written before the kill are written again"
