"""Dead letters to a Kafka topic: the Kafka connector's writer for ``errors.deadletterqueue.topic.name``.

The pipeline configures the Kafka sink it writes through (see
:mod:`smt.pipeline.dead_letters`); every dead letter goes to the one topic,
whatever topic its record had.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TopicDeadLetters"]


class TopicDeadLetters:
    """Dead letters to ``topic`` through a configured Kafka sink (its producer settings, its checks)."""

    def __init__(self, sink: Any, topic: str) -> None:
        self.sink = sink
        self.topic = topic

    def spark_conf(self) -> dict[str, str]:
        return self.sink.spark_conf()

    def check(self, spark) -> None:
        self.sink.check(spark)

    def record_errors(self, records) -> list:
        """Dead letters the topic's producer would refuse, as they will be written (to ``topic``)."""
        import pyarrow as pa

        index = records.schema.get_field_index("topic")
        topics = pa.array([self.topic] * records.num_rows, pa.string())
        return list(self.sink.record_errors(records.set_column(index, "topic", topics)))

    def write(self, df, batch_id=None) -> None:
        from pyspark.sql import functions as F

        self.sink.write(df.withColumn("topic", F.lit(self.topic)), batch_id)
