"""Kill -9 a streaming `smt run` mid-stream, restart it: nothing is lost.

The file sink commits each micro-batch once, so it ends with every record
exactly once.  Spark's Kafka sink is at-least-once: the micro-batch that was
running when the job died is written again on restart, so duplicates are
allowed there, loss is not.
"""

import json
import os
import signal
import time

import pytest

from tests.reliability.conftest import RUN_BOUND_SECONDS, smt_process

pytestmark = [pytest.mark.spark, pytest.mark.slow]

STREAMING = ("mode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
             "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
             "source=file\nsource.path=in\nsource.format=text\nsource.max.files.per.trigger=1\n")


def write_inputs(folder, files):
    """``files`` text files of 25 lines each in ``folder/in``; returns every line."""
    (folder / "in").mkdir()
    expected = []
    for f in range(files):
        lines = [f"file{f:02d}-line{n:02d}" for n in range(25)]
        (folder / "in" / f"part{f:02d}.txt").write_text("".join(f"{line}\n" for line in lines))
        expected.extend(lines)
    return expected


def kill_mid_stream(pipeline, root, finished_batches, files):
    """Start the pipeline, SIGKILL its whole process group once two micro-batches are done."""
    first = smt_process(["run", str(pipeline)], pipeline.parent, root)
    deadline = time.monotonic() + RUN_BOUND_SECONDS
    while len(finished_batches()) < 2:
        assert first.poll() is None, f"the first run ended before it could be killed: {first.communicate()}"
        assert time.monotonic() < deadline, "no micro-batch finished in time"
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(30)
    assert 2 <= len(finished_batches()) < files, "the kill must land mid-stream"


def run_to_the_end(pipeline, root):
    process = smt_process(["run", str(pipeline)], pipeline.parent, root)
    _, stderr = process.communicate(timeout=RUN_BOUND_SECONDS)
    return process.returncode, stderr


def listed(folder, keep=lambda name: not name.startswith(".")):
    return [name for name in os.listdir(folder) if keep(name)] if folder.exists() else []


def file_pipeline(tmp_path, header="via"):
    path = tmp_path / f"pipeline-{header}.properties"
    path.write_text(STREAMING + "name=recovery\nsink=file\nsink.path=out\nsink.format=jsonl\n"
                    "value.converter=string\nheader.converter=string\n"
                    "transforms=tag\ntransforms.tag.type=InsertHeader\n"
                    f"transforms.tag.header={header}\ntransforms.tag.value.literal=smt\n", encoding="utf-8")
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
    expected = write_inputs(tmp_path, files=10)
    pipeline = file_pipeline(tmp_path)
    kill_mid_stream(pipeline, root, lambda: listed(tmp_path / "out" / "_smt_commits"), files=10)

    code, stderr = run_to_the_end(pipeline, root)
    assert code == 0, stderr[-3000:]
    assert output_values(tmp_path / "out") == sorted(expected)

    # The same checkpoint with another transform setting is refused, and nothing is written.
    code, stderr = run_to_the_end(file_pipeline(tmp_path, header="other"), root)
    assert code != 0
    assert "belongs to a different pipeline (transforms.tag.header changed 'via' → 'other')" in stderr
    assert output_values(tmp_path / "out") == sorted(expected)


@pytest.mark.kafka
def test_a_kafka_sink_killed_mid_stream_loses_no_record(kafka_broker, tmp_path, pytestconfig):
    root = str(pytestconfig.rootpath)
    topic = kafka_broker.create_topic(kafka_broker.unique_topic("recovery"))
    expected = write_inputs(tmp_path, files=8)
    pipeline = tmp_path / "pipeline.properties"
    pipeline.write_text(STREAMING + f"name=kafka-recovery\nsink=kafka\nsink.topic={topic}\n"
                        f"sink.kafka.bootstrap.servers={kafka_broker.bootstrap_servers}\n"
                        f"transforms=route\ntransforms.route.type=RegexRouter\n"
                        f"transforms.route.regex=.*\ntransforms.route.replacement={topic}\n", encoding="utf-8")
    kill_mid_stream(pipeline, root, lambda: listed(tmp_path / "checkpoint" / "commits", str.isdigit), files=8)

    code, stderr = run_to_the_end(pipeline, root)
    assert code == 0, stderr[-3000:]
    values = [r.value.decode() for r in kafka_broker.consume(topic, len(expected), timeout=60)]
    assert set(values) == set(expected), "records were lost"
    assert len(values) >= len(expected)
