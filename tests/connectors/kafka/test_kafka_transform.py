"""smt.spark.transform over a DataFrame read with Spark's own Kafka source, written back with Spark's Kafka sink."""

from __future__ import annotations

import json

import pytest

from smt.spark import transform

pytestmark = [pytest.mark.kafka, pytest.mark.spark]


def test_a_kafka_dataframe_goes_through_a_chain_and_back_to_kafka(kafka_spark, kafka_broker):
    servers = kafka_broker.bootstrap_servers
    source = kafka_broker.create_topic(kafka_broker.unique_topic("orders"))
    kafka_broker.create_topic(f"{source}-masked")
    kafka_broker.produce(source, [
        {"key": "o1", "value": json.dumps({"id": 1, "card": "4111"}), "headers": [("trace", "t1")]},
        {"key": "o2", "value": "oops"},
    ])  # fmt: skip
    orders = (
        kafka_spark.read.format("kafka")
        .option("kafka.bootstrap.servers", servers)
        .option("subscribe", source)
        .option("includeHeaders", "true")
        .load()
    )
    result = transform(
        orders,
        {
            "value.converter": "json",
            "value.converter.schemas.enable": "false",
            "transforms": "mask,route",
            "transforms.mask.type": "org.apache.kafka.connect.transforms.MaskField$Value",
            "transforms.mask.fields": "card",
            "transforms.route.type": "RegexRouter",
            "transforms.route.regex": "(.*)",
            "transforms.route.replacement": "$1-masked",
            "errors.tolerance": "all",
        },
    ).persist()
    (
        result.records.select("key", "value", "topic", "headers")
        .write.format("kafka")
        .option("kafka.bootstrap.servers", servers)
        .save()
    )

    masked = kafka_broker.consume(f"{source}-masked", 1)
    assert [(r.key, json.loads(r.value), r.headers) for r in masked] == [
        (b"o1", {"id": 1, "card": ""}, (("trace", b"t1"),))
    ]
    dead = result.dead_letters.collect()
    assert [(r.key, r.value, r.topic, r.error_stage) for r in dead] == [(b"o2", b"oops", source, "VALUE_CONVERTER")]
    assert result.metrics()["records"] == {
        "read": 2,
        "written": 1,
        "output_rows": 1,
        "filtered": 0,
        "failed": 1,
        "dead_lettered": 1,
    }
