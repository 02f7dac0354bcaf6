"""proxy-wasm filters in whole pipelines on local Spark: the example files as written, and Kafka to Kafka."""

from __future__ import annotations

import json

import pytest

from smt.pipeline import PipelineSpec, run_pipeline
from smt.testing import output_lines
from tests.host_functions._guest_helpers import example_copy, kafka_to_kafka
from tests.host_functions.proxy_wasm.conftest import EXAMPLES

pytestmark = pytest.mark.spark


def test_example_files_run_as_written(spark, tmp_path, proxy_wasm_filters):
    upper = example_copy(
        tmp_path, EXAMPLES / "to_upper", proxy_wasm_filters[("to_upper", "rust")], "to_upper.rust.wasm"
    )
    result = run_pipeline(PipelineSpec.from_properties(upper / "to_upper.properties"), spark=spark)
    assert sorted(output_lines(upper / "out")) == [
        "A QUIET LINE",
        "ALL GOOD",
        "AN ERROR IN THE BILLING JOB",
        "ANOTHER ERROR",
    ]
    assert (result.counts.read, result.counts.written) == (4, 4)

    pii = example_copy(tmp_path, EXAMPLES / "pii_mask", proxy_wasm_filters[("pii_mask", "go")], "pii_mask.go.wasm")
    run_pipeline(PipelineSpec.from_properties(pii / "pii_mask.properties"), spark=spark)
    masked = sorted(
        (json.loads(line)["key"], json.loads(json.loads(line)["value"])) for line in output_lines(pii / "out")
    )
    assert masked == [
        ("u-1", {"name": "Ann Lee", "email": "<email>"}),
        ("u-2", {"name": "Bo", "notes": ["write to <email>", "or <email>"]}),
        ("u-3", {"name": "Cy", "email": None}),
    ]


@pytest.mark.kafka
@pytest.mark.slow
def test_kafka_to_kafka_with_a_hostile_request_dead_lettered(spark, kafka_broker, tmp_path, proxy_wasm_filters):
    source = kafka_broker.create_topic(partitions=2)
    sink = kafka_broker.create_topic()
    kafka_broker.produce(
        source,
        [
            {"key": "u-1", "value": '{"email": "a.b@c.de"}', "partition": 0},
            {"key": "u-2", "value": '{"boom": true}', "partition": 1},
            {"key": "u-3", "value": '{"to": ["x@y.org"]}', "partition": 0},
        ],
    )
    spec = PipelineSpec.from_properties(
        {
            **kafka_to_kafka(kafka_broker.bootstrap_servers, source),
            "transforms": "hostile,pii,route",
            "transforms.hostile.type": "wasm",
            "transforms.hostile.module.path": str(proxy_wasm_filters[("hostile", "go")]),
            "transforms.pii.type": "wasm",
            "transforms.pii.module.path": str(proxy_wasm_filters[("pii_mask", "go")]),
            "transforms.route.type": "RegexRouter",
            "transforms.route.regex": ".*",
            "transforms.route.replacement": sink,
            "errors.tolerance": "all",
            "errors.deadletterqueue.path": str(tmp_path / "dead"),
        }
    )
    result = run_pipeline(spec, spark=spark)
    written = sorted((r.key, json.loads(r.value)) for r in kafka_broker.consume(sink, 2))
    assert written == [(b"u-1", {"email": "***@***"}), (b"u-3", {"to": ["***@***"]})]
    dead = [json.loads(line) for line in output_lines(tmp_path / "dead")]
    assert [(d["key"], d["value"]) for d in dead] == [("u-2", '{"boom": true}')]
    assert (result.counts.read, result.counts.written, result.counts.failed) == (3, 2, 1)
