"""Where the summary says records went (no broker, no Spark: the locations come from the spec)."""

from smt.pipeline import PipelineSpec
from smt.pipeline.report import locations

KAFKA = {
    "source": "kafka", "source.kafka.bootstrap.servers": "127.0.0.1:9092", "source.topics": "raw",
    "sink": "kafka", "sink.kafka.bootstrap.servers": "127.0.0.1:9092", "sink.topic": "clean",
    "value.converter": "json", "value.converter.schemas.enable": "false",
}  # fmt: skip


def test_a_kafka_sinks_topic_takes_every_record_unless_a_transform_may_route():
    masked = {**KAFKA, "transforms": "mask", "transforms.mask.type": "MaskField$Value", "transforms.mask.fields": "a"}
    assert locations(PipelineSpec.from_properties(masked))["sink"] == "kafka topic clean"

    routed = {**KAFKA, "transforms": "route", "transforms.route.type": "RegexRouter",
              "transforms.route.regex": "raw", "transforms.route.replacement": "audit"}  # fmt: skip
    assert locations(PipelineSpec.from_properties(routed))["sink"] == (
        "kafka topic clean (records a transform routed: their new topic)"
    )
