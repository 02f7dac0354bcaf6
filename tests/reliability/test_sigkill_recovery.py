"""Kill -9 a streaming `smt run` mid-stream, restart it: nothing is lost.

The file sink commits each micro-batch once, so it ends with every record
exactly once.  Spark's Kafka sink (here Kafka → Kafka) is at-least-once: the micro-batch that was
running when the job died is written again on restart, so duplicates are
allowed there, loss is not.
"""

import collections
import json
import os
import signal
import time

import pytest

from smt.commands.output import EXIT_INVALID
from tests.reliability.conftest import RUN_BOUND_SECONDS, smt_process

pytestmark = [pytest.mark.spark, pytest.mark.slow]

STREAMING = (
    "mode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
    "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
    "source=file\nsource.path=in\nsource.format=text\nsource.max.files.per.trigger=1\n"
)


def write_inputs(folder, files, first=0):
    """Text files ``first``..``files - 1`` of 25 lines each in ``folder/in``; returns their lines."""
    (folder / "in").mkdir(exist_ok=True)
    expected = []
    for f in range(first, files):
        lines = [f"file{f:02d}-line{n:02d}" for n in range(25)]
        (folder / "in" / f"part{f:02d}.txt").write_text("".join(f"{line}\n" for line in lines))
        expected.extend(lines)
    return expected


def kill_mid_stream(pipeline, root, finished_batches, add_the_rest):
    """Run the pipeline on part of its input, SIGKILL its whole process group once two
    micro-batches are done, then ``add_the_rest()`` of the input.

    The first run triggers by processingTime, so it never ends by itself: the kill lands
    mid-stream whatever the machine's speed (no clock decides it).  Its input holds more
    micro-batches than two, so Spark is most likely still writing when the kill lands.
    """
    first = smt_process(["run", str(pipeline), "--set", "streaming.trigger=processingTime"], pipeline.parent, root)
    deadline = time.monotonic() + RUN_BOUND_SECONDS  # a bound for a hang, not a race
    while len(finished_batches()) < 2:
        assert first.poll() is None, f"the first run ended before it could be killed: {first.communicate()}"
        assert time.monotonic() < deadline, "no micro-batch finished in time"
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(30)
    add_the_rest()


def run_to_the_end(pipeline, root):
    process = smt_process(["run", str(pipeline)], pipeline.parent, root)
    _, stderr = process.communicate(timeout=RUN_BOUND_SECONDS)
    return process.returncode, stderr


def listed(folder, keep=lambda name: not name.startswith(".")):
    return [name for name in os.listdir(folder) if keep(name)] if folder.exists() else []


def file_pipeline(tmp_path, header="via", sink="out"):
    path = tmp_path / f"pipeline-{header}-{sink}.properties"
    path.write_text(
        STREAMING + f"name=recovery\nsink=file\nsink.path={sink}\nsink.format=jsonl\n"
        "value.converter=string\nheader.converter=string\n"
        "transforms=tag\ntransforms.tag.type=InsertHeader\n"
        f"transforms.tag.header={header}\ntransforms.tag.value.literal=smt\n",
        encoding="utf-8",
    )
    return path


def output_values(out):
    values = []
    for name in listed(out, lambda name: not name.startswith(("_", "."))):
        for line in (out / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            assert record["headers"] == [{"key": "via", "value": "smt"}]
            values.append(record["value"])
    return sorted(values)


def test_a_file_sink_killed_mid_stream_ends_with_every_record_exactly_once(tmp_path, pytestconfig):
    root = str(pytestconfig.rootpath)
    expected = write_inputs(tmp_path, files=4)
    pipeline = file_pipeline(tmp_path)
    rest = []
    kill_mid_stream(
        pipeline,
        root,
        lambda: list((tmp_path / "out" / "_smt_commits").glob("*/[0-9]*")),  # the query's commit markers
        lambda: rest.extend(write_inputs(tmp_path, files=10, first=4)),
    )
    expected += rest

    code, stderr = run_to_the_end(pipeline, root)
    assert code == 0, stderr[-3000:]
    assert output_values(tmp_path / "out") == sorted(expected)

    # Another sink with the same checkpoint is refused before anything runs, naming the key.
    code, stderr = run_to_the_end(file_pipeline(tmp_path, sink="elsewhere"), root)
    assert code == EXIT_INVALID
    assert "holds the offsets of another source or sink (sink.path changed" in stderr
    # Another transform setting carries on from the stored offsets (nothing new to read), saying what changed.
    code, stderr = run_to_the_end(file_pipeline(tmp_path, header="other"), root)
    assert code == 0, stderr[-3000:]
    assert (
        "the pipeline changed since the checkpoint was written (transforms.tag.header changed 'via' → 'other')"
        in stderr
    )
    assert output_values(tmp_path / "out") == sorted(expected)


@pytest.mark.kafka
def test_kafka_to_kafka_killed_mid_stream_loses_no_record_and_keeps_routing(kafka_broker, tmp_path, pytestconfig):
    """Records with the header "audit" are routed to their topic, ``sink.topic`` takes the others;
    duplicates are at most the micro-batch running at the kill; nothing is written into the source."""
    records, per_batch = 240, 30
    stem = kafka_broker.unique_topic("recovery")
    source = kafka_broker.create_topic(f"{stem}-raw", partitions=2)
    plain, audit = kafka_broker.create_topic(f"{stem}-plain"), kafka_broker.create_topic(f"{stem}-audit")
    ids = [f"record-{n:04d}" for n in range(records)]

    def produce(first, last):
        kafka_broker.produce(source, [{"value": ids[n], "partition": n % 2, "headers": [("audit", "y")] if n % 3 == 0 else []}
                                      for n in range(first, last)])  # fmt: skip

    produce(0, 4 * per_batch)  # the first run's input: four micro-batches
    servers = kafka_broker.bootstrap_servers
    pipeline = tmp_path / "pipeline.properties"
    pipeline.write_text(
        "name=kafka-recovery\nmode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
        "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
        f"source=kafka\nsource.topics={source}\nsource.kafka.bootstrap.servers={servers}\n"
        f"source.max.offsets.per.trigger={per_batch}\n"
        f"sink=kafka\nsink.topic={plain}\nsink.kafka.bootstrap.servers={servers}\n"
        "transforms=audit\ntransforms.audit.type=RegexRouter\ntransforms.audit.predicate=audited\n"
        f"transforms.audit.regex=.*\ntransforms.audit.replacement={audit}\n"
        "predicates=audited\npredicates.audited.type=HasHeaderKey\npredicates.audited.name=audit\n",
        encoding="utf-8",
    )
    root = str(pytestconfig.rootpath)
    kill_mid_stream(
        pipeline,
        root,
        lambda: listed(tmp_path / "checkpoint" / "commits", str.isdigit),
        lambda: produce(4 * per_batch, records),
    )

    code, stderr = run_to_the_end(pipeline, root)
    assert code == 0, stderr[-3000:]
    audited, plain_records = kafka_broker.consume(audit), kafka_broker.consume(plain)
    seen = collections.Counter(r.value.decode() for r in audited + plain_records)
    assert set(seen) == set(ids), f"records were lost: {sorted(set(ids) - set(seen))[:5]}"
    assert sum(seen.values()) - len(ids) <= per_batch, "only the micro-batch running at the kill may be written twice"
    assert {r.value.decode() for r in audited} == {ids[n] for n in range(0, records, 3)}, "routing survives the restart"
    assert len(kafka_broker.consume(source)) == records, "nothing may be written into the source topic"
