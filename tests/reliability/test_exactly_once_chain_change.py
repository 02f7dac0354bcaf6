"""Exactly-once through a restart that changes the chain: never a loss, never a duplicate.

A streaming Kafka → Kafka run with ``sink.delivery.guarantee=exactly_once`` is killed with SIGKILL once a
task of a micro-batch has committed its transaction (and the others, with two of four tasks running at a
time, have not), then restarted from its checkpoint with a chain that routes its records elsewhere, or
keys them differently, or with the input topic grown by more partitions.  Records are dealt to the
write's tasks by the partition they were read from, which no transform changes: the task whose marker
says it committed is given the same input records again, and skips them, whatever the chain now makes of
them.  (Dealt by their destination, a changed router moved records between the committed task and the
others: about 4% of the records were lost and as many written twice.)

The oracle is a ``read_committed`` consumer counting unique ids across every output topic.
"""

from __future__ import annotations

import collections
import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.reliability.conftest import RUN_BOUND_SECONDS, smt_process

pytestmark = [pytest.mark.spark, pytest.mark.kafka, pytest.mark.slow]

PARTITIONS = 4
RECORDS = 8_000
PER_TRIGGER = 2_000  # four micro-batches
KILL_BATCH = 1
_POLL_S = 0.02

CHANGES = {
    "route": "transforms=route\ntransforms.route.type=RegexRouter\ntransforms.route.regex=(.*)-in\n"
    "transforms.route.replacement=$1-routed\n",
    "key": "transforms=key\ntransforms.key.type=ValueToKey\ntransforms.key.fields=id\n",
    "partitions": "",
}


class ChangingFlow:
    """The topics, the folder and the pipeline file of one run, whose chain a restart may change."""

    def __init__(self, broker, folder: Path) -> None:
        self.broker = broker
        self.folder = folder
        self.stem = broker.unique_topic("eos-change")
        self.source = broker.create_topic(f"{self.stem}-in", partitions=PARTITIONS)
        self.outputs = [broker.create_topic(f"{self.stem}-{name}", partitions=PARTITIONS) for name in ("out", "routed")]
        rows = [{"value": json.dumps({"id": f"r{n:06d}"}), "key": json.dumps(f"k{n % 7}"), "partition": n % PARTITIONS}
                for n in range(RECORDS)]  # fmt: skip
        broker.produce(self.source, rows)
        self.pipeline = folder / "pipeline.properties"

    def write_pipeline(self, chain: str) -> None:
        servers = self.broker.bootstrap_servers
        self.pipeline.write_text(
            "name=eos-change\nmode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
            "spark.master=local[2,4]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=4\n"
            f"source=kafka\nsource.topics={self.source}\nsource.kafka.bootstrap.servers={servers}\n"
            f"source.max.offsets.per.trigger={PER_TRIGGER}\n"
            f"sink=kafka\nsink.topic={self.outputs[0]}\nsink.kafka.bootstrap.servers={servers}\n"
            f"sink.delivery.guarantee=exactly_once\nsink.transactional.id.prefix={self.stem}\n"
            "key.converter=json\nkey.converter.schemas.enable=false\n"
            "value.converter=json\nvalue.converter.schemas.enable=false\n" + chain,
            encoding="utf-8",
        )

    def commits(self) -> set[int]:
        folder = self.folder / "checkpoint" / "commits"
        return {int(name) for name in os.listdir(folder) if name.isdigit()} if folder.exists() else set()

    def tasks_committed(self, batch: int) -> int:
        """How many tasks' markers say they committed micro-batch ``batch`` (``<run>/<batch>/<tasks>``)."""
        from confluent_kafka import Consumer, KafkaException, TopicPartition

        count = 0
        for task in range(PARTITIONS):
            consumer = Consumer({"bootstrap.servers": self.broker.bootstrap_servers, "group.id": f"{self.stem}-{task}"})
            try:
                marker = consumer.committed([TopicPartition("smt-transaction-markers", 0)], timeout=10)[0]
            except KafkaException:  # the group's coordinator is still being chosen: not committed yet
                continue
            finally:
                consumer.close()
            count += marker.offset >= 0 and (marker.metadata or "").split("/")[1:2] == [str(batch)]
        return count


def _wait_for(process, condition, what: str) -> None:
    deadline = time.monotonic() + RUN_BOUND_SECONDS
    while not condition():
        if process.poll() is not None:
            raise AssertionError(f"the run ended before {what}: {process.communicate()[1][-3000:]}")
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(_POLL_S)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_restart_that_changes_the_chain_while_a_batch_is_half_committed_loses_nothing(
    kafka_broker, tmp_path, pytestconfig, change
):
    root = str(pytestconfig.rootpath)
    flow = ChangingFlow(kafka_broker, tmp_path)
    flow.write_pipeline("")
    process = smt_process(["run", str(flow.pipeline)], tmp_path, root)
    try:
        _wait_for(process, lambda: flow.tasks_committed(KILL_BATCH) > 0 or KILL_BATCH in flow.commits(),
                  f"a task of micro-batch {KILL_BATCH} committed")  # fmt: skip
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)
    half = flow.tasks_committed(KILL_BATCH)
    print(f"{change}: killed with {half} of {PARTITIONS} tasks of micro-batch {KILL_BATCH} committed")

    if change == "partitions":
        from confluent_kafka.admin import NewPartitions

        admin = kafka_broker._admin()  # kept until the future is done: a dropped client ends its requests
        admin.create_partitions([NewPartitions(flow.source, PARTITIONS + 2)])[flow.source].result(30)
    flow.write_pipeline(CHANGES[change])
    done = smt_process(["run", str(flow.pipeline)], tmp_path, root)
    _, stderr = done.communicate(timeout=RUN_BOUND_SECONDS)
    assert done.returncode == 0, stderr[-3000:]

    found = collections.Counter(
        json.loads(record.value)["id"] for topic in flow.outputs for record in kafka_broker.consume(topic)
    )
    expected = {f"r{n:06d}" for n in range(RECORDS)}
    missing, twice = expected - set(found), {i: c for i, c in found.items() if c > 1}
    print(f"{change}: {sum(found.values())} read back; {len(missing)} missing, {len(twice)} twice")
    assert not missing, f"lost: {sorted(missing)[:5]}"
    assert not twice, f"written more than once: {sorted(twice.items())[:5]}"
    assert set(found) == expected
