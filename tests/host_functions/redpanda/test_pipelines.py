"""Redpanda guests in whole pipelines on local Spark: the example files as written, and Kafka to Kafka."""

from __future__ import annotations

import json

import pytest

from smt.pipeline import PipelineSpec, run_pipeline
from smt.testing import output_lines
from tests.host_functions._guest_helpers import example_copy, kafka_to_kafka
from tests.host_functions.redpanda.conftest import EXAMPLES, LANGUAGES

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("language", LANGUAGES)
def test_example_files_run_as_written(spark, tmp_path, redpanda_guests, language):
    upper = example_copy(tmp_path, EXAMPLES / "to_upper", redpanda_guests[("to_upper", language)], "to_upper.rust.wasm")
    run_pipeline(PipelineSpec.from_properties(upper / "to_upper.properties"), spark=spark)
    assert sorted(output_lines(upper / "out")) == [
        "A QUIET LINE",
        "ALL GOOD",
        "AN ERROR IN THE BILLING JOB",
        "ANOTHER ERROR",
    ]

    errors = example_copy(tmp_path, EXAMPLES / "filter", redpanda_guests[("filter", language)], "filter.rust.wasm")
    result = run_pipeline(PipelineSpec.from_properties(errors / "filter.properties"), spark=spark)
    assert sorted(output_lines(errors / "out")) == ["an error in the billing job", "another error"]
    assert (result.counts.read, result.counts.written) == (4, 2)

    router = example_copy(tmp_path, EXAMPLES / "router", redpanda_guests[("router", language)], "router.rust.wasm")
    run_pipeline(PipelineSpec.from_properties(router / "router.properties"), spark=spark)
    routed = sorted((json.loads(line)["key"], json.loads(line)["topic"]) for line in output_lines(router / "out"))
    assert routed == [("o-1", "billing"), ("o-2", "main"), ("o-3", "audit"), ("o-4", "main")]


@pytest.mark.kafka
@pytest.mark.slow
def test_kafka_to_kafka_with_a_hostile_record_dead_lettered(spark, kafka_broker, tmp_path, redpanda_guests):
    source = kafka_broker.create_topic()
    main, billing = kafka_broker.create_topic(), kafka_broker.create_topic()
    kafka_broker.produce(
        source,
        [
            {"key": "o-1", "value": "paid", "headers": [("route", billing)]},
            {"key": "o-2", "value": "trap"},
            {"key": "o-3", "value": "queued"},
        ],
    )
    spec = PipelineSpec.from_properties(
        {
            **kafka_to_kafka(kafka_broker.bootstrap_servers, source),
            "transforms": "hostile,route",
            "transforms.hostile.type": "wasm",
            "transforms.hostile.module.path": str(redpanda_guests[("hostile", "go")]),
            "transforms.route.type": "wasm",
            "transforms.route.module.path": str(redpanda_guests[("router", "rust")]),
            "transforms.route.output.topics": f"{main},{billing}",
            "errors.tolerance": "all",
            "errors.deadletterqueue.path": str(tmp_path / "dead"),
        }
    )
    result = run_pipeline(spec, spark=spark)
    assert [(r.key, r.value) for r in kafka_broker.consume(billing, 1)] == [(b"o-1", b"paid")]
    assert [(r.key, r.value) for r in kafka_broker.consume(main, 1)] == [(b"o-3", b"queued")]
    dead = [json.loads(line) for line in output_lines(tmp_path / "dead")]
    assert [(d["key"], d["value"]) for d in dead] == [("o-2", "trap")]
    assert (result.counts.read, result.counts.written, result.counts.failed) == (3, 2, 1)
