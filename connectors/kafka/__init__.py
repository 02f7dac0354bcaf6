"""Kafka source (Spark's own Kafka connector, ``spark-sql-kafka-0-10``) and sink (librdkafka from Python tasks,
or Spark's connector)."""

from connectors.kafka._jars import older_connector_note, spark_jars, spark_kafka_bundle
from connectors.kafka._preflight import KafkaAuthenticationError, KafkaUnavailableError, MissingTopicError
from connectors.kafka._record_checks import RecordTooLargeError, SourceTopicError
from connectors.kafka.sink import KafkaSink, KafkaWriteError
from connectors.kafka.source import KafkaSource

__all__ = [
    "KafkaAuthenticationError",
    "KafkaSink",
    "KafkaSource",
    "KafkaUnavailableError",
    "KafkaWriteError",
    "MissingTopicError",
    "RecordTooLargeError",
    "SourceTopicError",
    "older_connector_note",
    "spark_jars",
    "spark_kafka_bundle",
]
