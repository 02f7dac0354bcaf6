"""The Kafka settings of a dead-letter topic: the sink's, overridden key by key, unless it names its own cluster."""

import pytest

from smt.pipeline.dead_letters import dead_letter_kafka_settings

SINK = {
    "sink.kafka.bootstrap.servers": "sink:9092",
    "sink.kafka.sasl.mechanism": "PLAIN",
    "sink.kafka.max.request.size": "1000",
}


def test_one_key_of_its_own_overrides_only_that_key():
    props = {**SINK, "errors.deadletterqueue.kafka.max.request.size": "5000000"}
    assert dead_letter_kafka_settings(props, "kafka") == {
        "kafka.bootstrap.servers": "sink:9092",
        "kafka.sasl.mechanism": "PLAIN",
        "kafka.max.request.size": "5000000",
    }


def test_a_cluster_of_its_own_inherits_nothing_from_the_sink():
    props = {**SINK, "errors.deadletterqueue.kafka.bootstrap.servers": "other:9092"}
    assert dead_letter_kafka_settings(props, "kafka") == {"kafka.bootstrap.servers": "other:9092"}


@pytest.mark.parametrize("sink", ["file", None])
def test_a_sink_that_is_not_kafka_lends_no_settings(sink):
    props = {**SINK, "errors.deadletterqueue.kafka.acks": "all"}
    assert dead_letter_kafka_settings(props, sink) == {"kafka.acks": "all"}


def test_the_dead_letter_writer_and_field_plan_are_built_once_per_spec(tmp_path):
    from smt.pipeline import PipelineSpec
    from smt.pipeline.processor import BatchProcessor

    source = tmp_path / "in.txt"
    source.touch()
    spec = PipelineSpec.from_properties(
        {
            "source.path": str(source),
            "sink.path": str(tmp_path / "out"),
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": "dlq",
            "errors.deadletterqueue.kafka.bootstrap.servers": "127.0.0.1:1",
        }
    )
    writer = spec.dead_letters
    assert writer is not None and writer.topic == "dlq"
    processor = BatchProcessor.from_spec(spec)
    spec.spark_conf()
    assert processor.dead_letter_checks is writer and spec.dead_letters is writer
    assert spec.field_plan is spec.field_plan
    assert processor.output_fields == spec.field_plan.outputs


def test_without_a_queue_there_is_no_writer(tmp_path):
    from smt.pipeline import PipelineSpec

    source = tmp_path / "in.txt"
    source.touch()
    spec = PipelineSpec.from_properties({"source.path": str(source), "sink.path": str(tmp_path / "out")})
    assert spec.dead_letters is None


def test_a_dead_letter_topic_that_falls_back_to_spark_s_connector_names_keys_that_exist(tmp_path, caplog):
    """A Java-only trust store rules the Python writer out for the sink and its dead-letter topic alike: the
    sink's warning names sink.writer, the dead-letter topic's names its topic key (it has no writer key)."""
    import logging

    from smt.pipeline import PipelineSpec

    source = tmp_path / "in.txt"
    source.touch()
    props = {
        "source.path": str(source),
        "sink": "kafka",
        "sink.topic": "out",
        "sink.kafka.bootstrap.servers": "127.0.0.1:1",
        "sink.kafka.ssl.truststore.location": "/t.p12",
        "sink.kafka.ssl.truststore.type": "PKCS12",
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": "dlq",
    }
    with caplog.at_level(logging.WARNING, logger="connectors.kafka._delivery"):
        spec = PipelineSpec.from_properties(props)
    assert spec.dead_letters.sink._librdkafka is None
    warnings = [record.getMessage() for record in caplog.records]
    assert len(warnings) == 2, warnings
    sink, dead_letters = warnings
    assert sink.startswith("sink.writer=auto: writing through Spark's Kafka connector, whose records get the time")
    assert "set sink.writer=spark to choose Spark's connector" in sink
    assert dead_letters.startswith(
        "errors.deadletterqueue.topic.name: the dead letters are written through Spark's Kafka connector, whose "
        "records get the time of writing as their timestamp"
    )
    assert "errors.deadletterqueue.kafka.ssl.truststore.location: cannot be given to the Kafka producer" in dead_letters
    assert "has no writer setting of its own, and does not follow sink.writer" in dead_letters
    assert "errors.deadletterqueue.writer" not in dead_letters
