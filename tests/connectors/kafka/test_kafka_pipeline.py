"""End to end: JSON events in a Kafka topic → Wasm PII mask and built-in SMTs → Kafka topics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from connectors.kafka import MissingTopicError
from host_functions.sdk import build_guest
from smt.pipeline import PipelineSpec, run_pipeline

pytestmark = [pytest.mark.kafka, pytest.mark.spark, pytest.mark.slow]

NOV_14_2023 = 1_700_000_000_000  # 2023-11-14T22:13:20Z
PII_MASK_SOURCE = Path(__file__).resolve().parents[3] / "examples" / "wasm" / "pii_mask" / "pii_mask.c"

EVENTS = [
    {"key": '"u1"', "value": {"user_id": "u1", "card": "4111 1111 1111 1111", "email": "alice@example.com",
                              "amount": 12.5, "internal": "x"},
     "headers": [("trace", "t-1")], "partition": 0},
    {"key": '"u2"', "value": {"user_id": "u2", "card": "5500-0000-0000-0004", "password": "hunter2", "amount": 99.0},
     "headers": [("trace", "t-2"), ("archive", "yes")], "partition": 1},
    {"key": '"u3"', "value": "not json at all", "headers": [("trace", "t-3")], "partition": 0},
    {"key": '"u4"', "value": {"user_id": "u4", "note": "mail dave@mail.example.org", "amount": 1.25},
     "headers": [("trace", "t-4")], "partition": 1},
]  # fmt: skip


@pytest.fixture(scope="module")
def pii_mask_module(tmp_path_factory, require_guest_toolchains) -> str:
    """The PII-mask example guest, compiled from its C source."""
    require_guest_toolchains("c")
    return str(build_guest(PII_MASK_SOURCE, tmp_path_factory.mktemp("guests")))


def pipeline_properties(servers: str, stem: str, pii_mask_module: str) -> dict[str, str]:
    return {
        "name": "kafka-e2e",
        "source": "kafka",
        "source.kafka.bootstrap.servers": servers,
        "source.topics": f"{stem}-payments",
        "sink": "kafka",
        "sink.kafka.bootstrap.servers": servers,
        "key.converter": "json",
        "key.converter.schemas.enable": "false",
        "value.converter": "json",
        "value.converter.schemas.enable": "false",
        "header.converter": "string",
        "transforms": "pii,drop,key,stamp,route,archive",
        "transforms.pii.type": "wasm",
        "transforms.pii.module.path": pii_mask_module,
        "transforms.pii.function.name": "pii_mask",
        "transforms.pii.value.converter": "json",
        "transforms.pii.value.converter.schemas.enable": "false",
        "transforms.drop.type": "org.apache.kafka.connect.transforms.ReplaceField$Value",
        "transforms.drop.exclude": "internal",
        "transforms.key.type": "ValueToKey",
        "transforms.key.fields": "user_id",
        "transforms.stamp.type": "InsertHeader",
        "transforms.stamp.header": "pipeline",
        "transforms.stamp.value.literal": "kafka-e2e",
        "transforms.route.type": "RegexRouter",
        "transforms.route.regex": "(.*)-payments",
        "transforms.route.replacement": "$1-masked",
        "transforms.archive.type": "TimestampRouter",
        "transforms.archive.topic.format": "${topic}-${timestamp}",
        "transforms.archive.timestamp.format": "yyyyMMdd",
        "transforms.archive.predicate": "archived",
        "predicates": "archived",
        "predicates.archived.type": "HasHeaderKey",
        "predicates.archived.name": "archive",
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": f"{stem}-dlq",
        "errors.deadletterqueue.context.headers.enable": "true",
    }


def test_events_are_masked_keyed_stamped_and_routed(kafka_spark, kafka_broker, pii_mask_module):
    stem = kafka_broker.unique_topic("e2e")
    source = kafka_broker.create_topic(f"{stem}-payments", partitions=2)
    for topic in (f"{stem}-masked", f"{stem}-masked-20231114", f"{stem}-dlq"):
        kafka_broker.create_topic(topic)
    kafka_broker.produce(source, [
        {**event, "value": event["value"] if isinstance(event["value"], str) else json.dumps(event["value"]),
         "timestamp": NOV_14_2023}
        for event in EVENTS
    ])  # fmt: skip

    spec = PipelineSpec.from_properties(pipeline_properties(kafka_broker.bootstrap_servers, stem, pii_mask_module))
    result = run_pipeline(spec, spark=kafka_spark)
    assert (result.counts.read, result.counts.written, result.counts.dead_lettered) == (4, 3, 1)

    masked = kafka_broker.consume(f"{stem}-masked", 2)
    assert sorted(((json.loads(r.key), json.loads(r.value), r.headers) for r in masked), key=lambda r: r[0]["user_id"]) == [
        ({"user_id": "u1"}, {"user_id": "u1", "card": "**** **** **** 1111", "email": "a***@example.com", "amount": 12.5},
         (("trace", b"t-1"), ("pipeline", b"kafka-e2e"))),
        ({"user_id": "u4"}, {"user_id": "u4", "note": "mail d***@mail.example.org", "amount": 1.25},
         (("trace", b"t-4"), ("pipeline", b"kafka-e2e"))),
    ]  # fmt: skip
    archived = kafka_broker.consume(f"{stem}-masked-20231114", 1)
    assert [(json.loads(r.key), json.loads(r.value), r.headers) for r in archived] == [
        ({"user_id": "u2"}, {"user_id": "u2", "card": "****-****-****-0004", "password": "***", "amount": 99.0},
         (("trace", b"t-2"), ("archive", b"yes"), ("pipeline", b"kafka-e2e"))),
    ]  # fmt: skip
    dead = kafka_broker.consume(f"{stem}-dlq", 1)
    assert [(r.key, r.value) for r in dead] == [(b'"u3"', b"not json at all")]
    dead_headers = dict(dead[0].headers)
    assert dead_headers["trace"] == b"t-3"
    assert dead_headers["__connect.errors.topic"] == source.encode()
    assert dead_headers["__connect.errors.stage"] == b"VALUE_CONVERTER"


def test_a_missing_output_topic_fails_the_run_before_writing(kafka_spark, kafka_broker, pii_mask_module):
    stem = kafka_broker.unique_topic("e2e-missing")
    source = kafka_broker.create_topic(f"{stem}-payments")
    kafka_broker.create_topic(f"{stem}-dlq")
    kafka_broker.produce(source, [{"key": '"u1"', "value": json.dumps(EVENTS[0]["value"])}])
    spec = PipelineSpec.from_properties(pipeline_properties(kafka_broker.bootstrap_servers, stem, pii_mask_module))
    with pytest.raises(
        MissingTopicError, match=rf"^sink: topic '{stem}-masked' does not exist on the Kafka cluster at "
    ):
        run_pipeline(spec, spark=kafka_spark)
    assert kafka_broker.consume(f"{stem}-dlq") == []
