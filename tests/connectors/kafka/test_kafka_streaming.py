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
