"""The Kafka source as a stream, written micro-batch by micro-batch by the Kafka sink."""

from __future__ import annotations

import pytest

from connectors.kafka import KafkaSink, KafkaSource
from tests.connectors.kafka._helpers import configured

pytestmark = [pytest.mark.kafka, pytest.mark.spark]


def test_a_stream_copies_records_with_headers_and_resumes_from_its_checkpoint(kafka_spark, kafka_broker, tmp_path):
    source_topic = kafka_broker.create_topic(kafka_broker.unique_topic("stream-in"), partitions=2)
    out_topic = kafka_broker.create_topic(kafka_broker.unique_topic("stream-out"))
    servers = kafka_broker.bootstrap_servers
    source = configured(KafkaSource, "source", kafka_bootstrap_servers=servers, topics=source_topic)
    sink = configured(KafkaSink, "sink", kafka_bootstrap_servers=servers, topic=out_topic)
    checkpoint = str(tmp_path / "checkpoint")

    def run_until_caught_up() -> None:
        from pyspark.sql import functions as F

        # Records keep their source topic unless told otherwise: send them all to the default.
        df = source.read(kafka_spark, streaming=True).withColumn("topic", F.lit(None).cast("string"))
        query = (
            df.writeStream.foreachBatch(sink.write)
            .option("checkpointLocation", checkpoint)
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination(120)
        assert query.exception() is None

    kafka_broker.produce(source_topic, [{"key": "a", "value": "1", "headers": [("h", "x")], "partition": 0},
                                        {"key": "b", "value": "2", "partition": 1}])  # fmt: skip
    run_until_caught_up()
    kafka_broker.produce(source_topic, [{"key": "c", "value": "3", "partition": 0}])
    run_until_caught_up()

    copied = kafka_broker.consume(out_topic, 3)
    assert sorted((r.key, r.value, r.headers) for r in copied) == [
        (b"a", b"1", (("h", b"x"),)),
        (b"b", b"2", ()),
        (b"c", b"3", ()),
    ]


def test_spark_connector_writes_a_stream_inside_the_query_itself(kafka_spark, kafka_broker, tmp_path):
    """No step on the driver per micro-batch: the sink's writer is the query's; a restart resumes it."""
    source_topic = kafka_broker.create_topic(kafka_broker.unique_topic("in-query-in"), partitions=2)
    out_topic = kafka_broker.create_topic(kafka_broker.unique_topic("in-query-out"))
    servers = kafka_broker.bootstrap_servers
    source = configured(KafkaSource, "source", kafka_bootstrap_servers=servers, topics=source_topic)
    sink = configured(KafkaSink, "sink", kafka_bootstrap_servers=servers, topic=out_topic, check_topics="false",
                      writer="spark")  # fmt: skip

    def run_until_caught_up() -> None:
        from pyspark.sql import functions as F

        df = source.read(kafka_spark, streaming=True).withColumn("topic", F.lit(None).cast("string"))
        writer = sink.stream_writer(df, None, None)
        query = writer.option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(availableNow=True).start()
        query.awaitTermination(120)
        assert query.exception() is None

    kafka_broker.produce(source_topic, [{"key": "a", "value": "1", "partition": 0},
                                        {"key": "b", "value": "2", "partition": 1}])  # fmt: skip
    run_until_caught_up()
    kafka_broker.produce(source_topic, [{"key": "c", "value": "3", "partition": 0}])
    run_until_caught_up()

    copied = kafka_broker.consume(out_topic, 3)
    assert sorted((r.key, r.value) for r in copied) == [(b"a", b"1"), (b"b", b"2"), (b"c", b"3")]


def test_records_whose_topics_must_be_checked_as_they_come_are_written_from_the_driver(kafka_spark, kafka_broker):
    """With check.topics and a chain that may route, each micro-batch's destinations are checked first."""
    topic = kafka_broker.create_topic(kafka_broker.unique_topic("checked"))
    servers = kafka_broker.bootstrap_servers
    sink = configured(KafkaSink, "sink", kafka_bootstrap_servers=servers, topic=topic)
    df = configured(KafkaSource, "source", kafka_bootstrap_servers=servers, topics=topic).read(
        kafka_spark, streaming=True
    )
    assert sink.stream_writer(df, None, None) is None and sink.task_writer(kafka_spark, None, None) is None
    unchecked = configured(KafkaSink, "sink", kafka_bootstrap_servers=servers, topic=topic, check_topics="false")
    # The Python writers write in the chain's own tasks; Spark's connector in the query after it.
    assert unchecked.stream_writer(df, None, None) is None
    assert unchecked.task_writer(kafka_spark, None, None) is not None
    spark_writer = configured(KafkaSink, "sink", kafka_bootstrap_servers=servers, topic=topic, check_topics="false",
                              writer="spark")  # fmt: skip
    assert spark_writer.stream_writer(df, None, None) is not None
    assert spark_writer.task_writer(kafka_spark, None, None) is None


@pytest.mark.parametrize("exactly_once", [False, True], ids=["at least once", "exactly once, dead letters"])
def test_a_streaming_run_writes_each_record_in_the_task_that_transformed_it(
    kafka_spark, kafka_broker, tmp_path, caplog, exactly_once
):
    """The Python writers in the chain's own tasks: records keep their timestamps and headers, filtered
    and failed ones are not written (exactly once, the failed one is a dead letter in the same
    transaction), every record is counted, and a restart resumes."""
    import logging

    from smt.pipeline import PipelineSpec, run_pipeline

    stem = kafka_broker.unique_topic("in-task-eos" if exactly_once else "in-task")
    source_topic = kafka_broker.create_topic(f"{stem}-in", partitions=2)
    out_topic, dlq = kafka_broker.create_topic(f"{stem}-out"), kafka_broker.create_topic(f"{stem}-dlq")
    servers = kafka_broker.bootstrap_servers
    guarantee = {"sink.delivery.guarantee": "exactly_once", "sink.transactional.id.prefix": stem,
                 "errors.deadletterqueue.topic.name": dlq} if exactly_once else {}  # fmt: skip
    spec = PipelineSpec.from_properties({
        "name": stem, "mode": "streaming", "streaming.trigger": "availableNow",
        "checkpoint.location": str(tmp_path / "checkpoint"),
        "source": "kafka", "source.kafka.bootstrap.servers": servers, "source.topics": source_topic,
        "sink": "kafka", "sink.kafka.bootstrap.servers": servers, "sink.topic": out_topic,
        "value.converter": "json", "value.converter.schemas.enable": "false",
        "transforms": "mask,drop", "transforms.mask.type": "MaskField$Value", "transforms.mask.fields": "email",
        "transforms.drop.type": "Filter", "transforms.drop.predicate": "dropped",
        "predicates": "dropped", "predicates.dropped.type": "HasHeaderKey", "predicates.dropped.name": "drop",
        "errors.tolerance": "all", **guarantee,
    })  # fmt: skip
    kafka_broker.produce(source_topic, [
        {"key": "a", "value": '{"id":1,"email":"a@x"}', "headers": [("h", "1")], "partition": 0, "timestamp": 1000},
        {"key": "b", "value": '{"id":2,"email":"b@x"}', "headers": [("drop", "")], "partition": 1},
        {"key": "c", "value": "not json", "partition": 1},
    ])  # fmt: skip
    with caplog.at_level(logging.INFO, logger="smt.pipeline.runner"):
        first = run_pipeline(spec, spark=kafka_spark).counts
    assert "each task writes its records where the chain produced them" in caplog.text
    assert (first.read, first.written, first.filtered, first.failed) == (3, 1, 1, 1)
    assert first.dead_lettered == (1 if exactly_once else 0)

    kafka_broker.produce(source_topic, [{"key": "d", "value": '{"id":4,"email":"d@x"}', "partition": 0,
                                         "timestamp": 4000}])  # fmt: skip
    second = run_pipeline(spec, spark=kafka_spark).counts
    assert (second.read, second.written) == (1, 1)

    written = kafka_broker.consume(out_topic, 2)
    assert [(r.key, r.value, r.headers, r.timestamp) for r in written] == [
        (b"a", b'{"id":1,"email":""}', (("h", b"1"),), 1000),
        (b"d", b'{"id":4,"email":""}', (), 4000),
    ]
    if exactly_once:
        assert [(r.key, r.value) for r in kafka_broker.consume(dlq, 1)] == [(b"c", b"not json")]
