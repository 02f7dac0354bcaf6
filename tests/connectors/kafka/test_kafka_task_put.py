"""On a real broker: a record larger than the producer accepts goes to the dead-letter topic, the rest are written."""

from __future__ import annotations

import pytest

from smt.pipeline import PipelineSpec, run_pipeline

pytestmark = [pytest.mark.kafka, pytest.mark.spark]


def test_an_oversized_record_is_dead_lettered_and_the_others_reach_the_output_topic(kafka_spark, kafka_broker):
    stem = kafka_broker.unique_topic("put")
    source = kafka_broker.create_topic(f"{stem}-in")
    output = kafka_broker.create_topic(f"{stem}-out")
    dlq = kafka_broker.create_topic(f"{stem}-dlq")
    kafka_broker.produce(source, [
        {"key": "a", "value": "small", "headers": [("trace", "t-1")]},
        {"key": "b", "value": "x" * 3000, "headers": [("trace", "t-2")]},
        {"key": "c", "value": "also small"},
    ])  # fmt: skip
    servers = kafka_broker.bootstrap_servers
    spec = PipelineSpec.from_properties({
        "source": "kafka", "source.kafka.bootstrap.servers": servers, "source.topics": source,
        "sink": "kafka", "sink.kafka.bootstrap.servers": servers, "sink.kafka.max.request.size": "2048",
        "transforms": "route", "transforms.route.type": "RegexRouter",
        "transforms.route.regex": "(.*)-in", "transforms.route.replacement": "$1-out",
        "errors.tolerance": "all", "errors.deadletterqueue.topic.name": dlq,
        # The dead-letter queue's own producer keeps Kafka's default limit.
        "errors.deadletterqueue.kafka.bootstrap.servers": servers,
        "errors.deadletterqueue.context.headers.enable": "true",
    })  # fmt: skip
    counts = run_pipeline(spec, spark=kafka_spark).counts
    assert (counts.read, counts.written, counts.failed, counts.dead_lettered) == (3, 2, 1, 1)
    assert sorted((r.key, r.value) for r in kafka_broker.consume(output, 2)) == [
        (b"a", b"small"),
        (b"c", b"also small"),
    ]
    [dead] = kafka_broker.consume(dlq, 1)
    assert (dead.key, dead.value) == (b"b", b"x" * 3000)
    headers = dict(dead.headers)
    assert headers["trace"] == b"t-2"
    assert headers["__connect.errors.topic"] == source.encode()
    assert headers["__connect.errors.stage"] == b"TASK_PUT"
    assert headers["__connect.errors.class.name"] == b"connectors.kafka.sink.KafkaSink"
    assert headers["__connect.errors.exception.message"].endswith(
        b"larger than 2048, the value of sink.kafka.max.request.size"
    )
