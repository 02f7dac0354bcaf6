"""Kill -9 a streaming `smt run` writing to Kafka mid-stream, restart it: no record is lost.

Spark's Kafka sink is at-least-once: the micro-batch that was running when the
job died is written again on restart, so duplicates are allowed, loss is not.
"""

import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = [pytest.mark.kafka, pytest.mark.spark, pytest.mark.slow]

FILES, LINES_PER_FILE = 8, 25


def pipeline_file(tmp_path, servers, topic):
    path = tmp_path / "pipeline.properties"
    path.write_text(
        "name=kafka-recovery\nmode=streaming\ncheckpoint.location=checkpoint\n"
        "streaming.trigger=availableNow\n"
        "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
        "source=file\nsource.path=in\nsource.format=text\nsource.max.files.per.trigger=1\n"
        f"sink=kafka\nsink.topic={topic}\nsink.kafka.bootstrap.servers={servers}\n"
        "transforms=route\ntransforms.route.type=RegexRouter\n"
        f"transforms.route.regex=.*\ntransforms.route.replacement={topic}\n",
        encoding="utf-8",
    )
    return path


def completed_batches(checkpoint):
    commits = checkpoint / "commits"
    return [n for n in os.listdir(commits) if n.isdigit()] if commits.exists() else []


def start(pipeline, root):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
           "PYSPARK_PYTHON": sys.executable}
    # A session of its own, so SIGKILL reaches the driver's JVM and Python workers too.
    return subprocess.Popen([sys.executable, "-m", "smt", "run", str(pipeline)], cwd=pipeline.parent, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_sigkill_mid_stream_then_restart_loses_no_record(kafka_broker, tmp_path, pytestconfig):
    root = str(pytestconfig.rootpath)
    topic = kafka_broker.create_topic(kafka_broker.unique_topic("recovery"))
    (tmp_path / "in").mkdir()
    expected = []
    for f in range(FILES):
        lines = [f"file{f:02d}-line{n:02d}" for n in range(LINES_PER_FILE)]
        (tmp_path / "in" / f"part{f:02d}.txt").write_text("".join(f"{line}\n" for line in lines))
        expected.extend(lines)
    pipeline = pipeline_file(tmp_path, kafka_broker.bootstrap_servers, topic)

    first = start(pipeline, root)
    deadline = time.monotonic() + 300
    while len(completed_batches(tmp_path / "checkpoint")) < 2:
        assert first.poll() is None, f"the first run ended before it could be killed: {first.communicate()}"
        assert time.monotonic() < deadline, "no micro-batch completed in time"
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(30)
    assert 2 <= len(completed_batches(tmp_path / "checkpoint")) < FILES, "the kill must land mid-stream"

    second = start(pipeline, root)
    _, stderr = second.communicate(timeout=300)
    assert second.returncode == 0, stderr[-3000:]

    values = [r.value.decode() for r in kafka_broker.consume(topic, len(expected), timeout=60)]
    assert set(values) == set(expected), "records were lost"
    assert len(values) >= len(expected)
