"""The file → Kafka walkthrough of docs/kafka.md: the example pipeline, run by `smt run` against a real broker."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "quickstart" / "payments-to-kafka.properties"

pytestmark = [pytest.mark.kafka, pytest.mark.spark]


def test_the_page_shows_the_example_file_as_it_is():
    page = (ROOT / "docs" / "kafka.md").read_text(encoding="utf-8")
    assert f"```properties\n{EXAMPLE.read_text(encoding='utf-8')}```" in page


def test_events_reach_the_topic_masked_and_keyed_and_the_bad_line_its_dead_letter_topic(kafka_broker):
    topic, dead = kafka_broker.create_topic(partitions=3), kafka_broker.create_topic()
    env = {**os.environ, "KAFKA_BOOTSTRAP": kafka_broker.bootstrap_servers}
    done = subprocess.run(
        [sys.executable, "-m", "smt", "run", "-q", str(EXAMPLE), "--set", f"source.topic={topic}",
         "--set", f"sink.topic={topic}", "--set", f"errors.deadletterqueue.topic.name={dead}",
         "--set", "spark.master=local[1]"],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "" and done.stderr == ""  # -q: nothing but errors, and Spark kept out
    records = kafka_broker.consume(topic, n=4)
    events = sorted((json.loads(r.value) for r in records), key=lambda e: e["amount"])
    assert [e["card"] for e in events] == [""] * 4
    assert sorted(r.key for r in records) == [b'{"user_id":1}', b'{"user_id":2}', b'{"user_id":3}',
                                              b'{"user_id":null}']  # fmt: skip
    assert [r.value for r in kafka_broker.consume(dead, n=1)] == [b"not json at all"]
