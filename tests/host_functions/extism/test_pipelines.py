"""Extism plug-ins in whole pipelines on local Spark: the example pipeline files over files, and a
Kafka topic through a Rust and a Go plug-in to Kafka topics, with a dead-letter queue."""

from __future__ import annotations

import json

import pytest

from smt.pipeline import PipelineSpec, run_pipeline
from smt.testing import output_lines
from tests.host_functions._guest_helpers import example_copy, kafka_to_kafka
from tests.host_functions.extism.conftest import EXAMPLES

pytestmark = pytest.mark.spark


def test_the_to_upper_example_runs_as_written(spark, tmp_path, extism_plugins):
    folder = example_copy(tmp_path, EXAMPLES / "to_upper", extism_plugins["to_upper-rust"], "to_upper-rust.wasm")

    result = run_pipeline(PipelineSpec.from_properties(folder / "to_upper.properties"), spark=spark)

    assert sorted(output_lines(folder / "out")) == [
        "EXTISM MEETS KAFKA CONNECT",
        "HELLO WORLD",
        "MIXED CASE \u00c9T\u00c9",
    ]
    assert (result.counts.read, result.counts.written) == (3, 3)


def test_the_running_max_example_routes_running_maxima(spark, tmp_path, extism_plugins):
    folder = example_copy(tmp_path, EXAMPLES / "running_max", extism_plugins["running_max-go"], "running_max-go.wasm")

    run_pipeline(PipelineSpec.from_properties(folder / "running_max.properties"), spark=spark)

    lines = [json.loads(line) for line in output_lines(folder / "out")]
    assert [(line["topic"], line["key"], json.loads(line["value"])["price"]) for line in lines] == [
        ("max-prices", "ACME", 3.5),
        ("max-prices", "ACME", 5.25),
        ("max-prices", "ACME", 5.25),
    ]


def test_the_connect_transformer_example_runs_as_written(spark, tmp_path, extism_plugins):
    folder = example_copy(
        tmp_path,
        EXAMPLES / "connect_transformer",
        extism_plugins["connect_transformer-go"],
        "connect_transformer-go.wasm",
    )

    run_pipeline(PipelineSpec.from_properties(folder / "connect_transformer.properties"), spark=spark)

    lines = [json.loads(line) for line in output_lines(folder / "out")]
    assert sorted((line["key"], line["value"]) for line in lines) == [
        ("another value", "ANOTHER VALUE"),
        ("the-value", "THE-VALUE"),
    ]


@pytest.mark.kafka
@pytest.mark.slow
def test_kafka_to_kafka_through_a_rust_and_a_go_plugin(spark, kafka_broker, extism_plugins):
    stem = kafka_broker.unique_topic("extism")
    source = kafka_broker.create_topic(f"{stem}-orders")
    for topic in (f"{stem}-max", f"{stem}-dlq"):
        kafka_broker.create_topic(topic)
    orders = [
        {"date": "2024-03-01T10:00:00Z", "price": 3.5, "volume": 10},
        "not an order",
        {"date": "2024-03-01T10:01:00Z", "price": 5.25, "volume": 20},
        {"date": "2024-03-01T10:02:00Z", "price": 4.0, "volume": 30},
    ]
    kafka_broker.produce(
        source, [{"key": "acme", "value": json.dumps(order), "headers": [("feed", "x")]} for order in orders]
    )
    spec = PipelineSpec.from_properties(
        {
            **kafka_to_kafka(kafka_broker.bootstrap_servers, source),
            "key.converter": "string",
            "value.converter": "json",
            "value.converter.schemas.enable": "false",
            "transforms": "upper,max",
            # Rust: upper-cases a text value ("not an order"); orders are JSON objects and pass unchanged
            "transforms.upper.type": "wasm",
            "transforms.upper.module.path": str(extism_plugins["to_upper-rust"]),
            # Go: the running maximum, routed to the topic its config names; "not an order" fails it
            "transforms.max.type": "wasm",
            "transforms.max.module.path": str(extism_plugins["running_max-go"]),
            "transforms.max.wasi": "true",
            "transforms.max.config.topic-name": f"{stem}-max",
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": f"{stem}-dlq",
            "errors.deadletterqueue.context.headers.enable": "true",
        }
    )

    result = run_pipeline(spec, spark=spark)

    assert (result.counts.read, result.counts.written, result.counts.dead_lettered) == (4, 3, 1)
    maxima = kafka_broker.consume(f"{stem}-max", 3)
    assert [(r.key, json.loads(r.value)["price"], r.headers) for r in maxima] == [
        (b"acme", 3.5, (("feed", b"x"),)),
        (b"acme", 5.25, (("feed", b"x"),)),
        (b"acme", 5.25, (("feed", b"x"),)),
    ]
    dead = kafka_broker.consume(f"{stem}-dlq", 1)
    assert [(r.key, r.value) for r in dead] == [(b"acme", b'"not an order"')]  # the record as read
    context = dict(dead[0].headers)
    assert context["__connect.errors.stage"] == b"TRANSFORMATION"
    assert b"wasm transform 'max' (transform in running_max-go-" in context["__connect.errors.exception.message"]
    assert (
        b"the plug-in reported an error (return code 1): json: cannot unmarshal string"
        in context["__connect.errors.exception.message"]
    )
