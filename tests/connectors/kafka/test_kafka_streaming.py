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


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"writer": "spark"},
        {"delivery_guarantee": "exactly_once", "transactional_id_prefix": "in-query"},
    ],
    ids=["python tasks, at least once", "Spark's connector", "exactly once"],
)
def test_the_sink_writes_a_stream_inside_the_query_itself(kafka_spark, kafka_broker, tmp_path, settings):
    """No step on the driver per micro-batch: the sink's writer is the query's; a restart resumes it."""
    source_topic = kafka_broker.create_topic(kafka_broker.unique_topic("in-query-in"), partitions=2)
    out_topic = kafka_broker.create_topic(kafka_broker.unique_topic("in-query-out"))
    servers = kafka_broker.bootstrap_servers
    source = configured(KafkaSource, "source", kafka_bootstrap_servers=servers, topics=source_topic)
    sink = configured(KafkaSink, "sink", kafka_bootstrap_servers=servers, topic=out_topic, check_topics="false",
                      **settings)  # fmt: skip

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
    assert sink.stream_writer(df, None, None) is None
    unchecked = configured(KafkaSink, "sink", kafka_bootstrap_servers=servers, topic=topic, check_topics="false")
    assert unchecked.stream_writer(df, None, None) is not None
