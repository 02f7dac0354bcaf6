"""Dead letters to a Kafka topic: the Kafka connector's writer for ``errors.deadletterqueue.topic.name``.

The pipeline configures the Kafka sink it writes through (see
:mod:`smt.pipeline.dead_letters`); every dead letter goes to the one topic,
whatever topic its record had.
"""

from __future__ import annotations

from typing import Any

from smt.connector import Sink, SinkContext
from smt.connector_roles import RecordChecks

__all__ = ["DEAD_LETTER_PREFIX", "DEAD_LETTER_TOPIC_KEY", "TopicDeadLetters"]

#: The key prefix of the Kafka sink a dead-letter topic is written through (its settings are the
#: ``kafka.*`` ones alone: it has no ``writer`` or ``delivery.guarantee`` of its own).
DEAD_LETTER_PREFIX = "errors.deadletterqueue."
DEAD_LETTER_TOPIC_KEY = f"{DEAD_LETTER_PREFIX}topic.name"


class TopicDeadLetters(Sink, RecordChecks):
    """Dead letters to ``topic`` through a configured Kafka sink (its producer settings, its checks)."""

    def __init__(self, sink: Any, topic: str) -> None:
        self.sink = sink
        self.topic = topic

    def spark_conf(self) -> dict[str, str]:
        return self.sink.spark_conf()

    def open(self, context: SinkContext) -> None:
        """Refuse a topic the pipeline's Kafka source reads from the same cluster: its dead letters
        would be read again (in streaming mode, again and again); with the session, check that the
        cluster answers and the topic exists, before anything is written anywhere.

        Raises :class:`smt.errors.ConfigError` naming ``errors.deadletterqueue.topic.name``, and what
        :meth:`connectors.kafka.sink.KafkaSink.check` raises.
        """
        if context.source is not None:
            self._refuse_source_topic(context.source)
        if context.session is not None:
            self.sink.check(context.session)

    def _refuse_source_topic(self, source: Any) -> None:
        from connectors.kafka._subscription import same_cluster, server_addresses
        from connectors.kafka.source import KafkaSource
        from smt.errors import ConfigError

        if not isinstance(source, KafkaSource):
            return
        read = source.subscription()
        if same_cluster(read.servers, server_addresses(self.sink.kafka_params["bootstrap.servers"])) and read.reads(
            self.topic
        ):
            raise ConfigError.for_key(
                DEAD_LETTER_TOPIC_KEY,
                f"'{self.topic}' is read by this pipeline's source ({read.describe()}) from the same Kafka "
                "cluster: its dead letters would be read again; choose another topic",
                self.topic,
            )

    def record_errors(self, records) -> list:
        """Dead letters the topic's producer would refuse, as they will be written (to ``topic``)."""
        import pyarrow as pa

        index = records.schema.get_field_index("topic")
        topics = pa.array([self.topic] * records.num_rows, pa.string())
        return list(self.sink.record_errors(records.set_column(index, "topic", topics)))

    def write(self, df, batch_id=None) -> None:
        from pyspark.sql import functions as F

        self.sink.write(df.withColumn("topic", F.lit(self.topic)), batch_id)
