"""The Kafka sink: records written through Spark's own Kafka connector."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from connectors.base import Sink
from connectors.kafka._jars import spark_jars
from connectors.kafka._options import KAFKA_FILE_CONFIG, kafka_params, spark_kafka_options
from connectors.kafka._record_checks import KafkaRecordChecks, legal_topic_name
from connectors.kafka._preflight import (
    MissingTopicError,
    kafka_error_summary,
    list_topics,
    require_topics,
)
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, at_least, non_empty_string
from smt.errors import SmtError
from smt.plugin import PluginContext

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["KafkaSink", "KafkaWriteError"]


def _topic_or_empty(name: str) -> None:
    if name:
        legal_topic_name(name)


class KafkaWriteError(SmtError):
    """Spark's Kafka sink failed; the message names the cluster and the Kafka error."""


class KafkaSink(Sink):
    """Writes each record's key, value and headers to its own topic with Spark's Kafka connector.

    The topic comes from the record, so ``set_topic``, ``RegexRouter`` and
    ``TimestampRouter`` route records; ``topic`` is the topic for records that
    carry none.  The partition is left to the producer (by key) unless
    ``keep.partition`` is set; the timestamp is the time of writing (Spark's
    Kafka sink does not write timestamps).  Every ``kafka.*`` key goes to the
    Kafka producer with the prefix removed.

    Delivery is at-least-once, as Spark's Kafka sink is: it has no
    transactions, so a task or micro-batch that fails and is retried writes
    its records again, and a write that fails half-way leaves the records
    already sent in Kafka.  What can be checked up front is checked before
    anything is written: that the cluster answers and, with ``check.topics``,
    that every destination topic exists and every record has a topic.

    A record the producer would refuse (no topic, an illegal topic name, a
    negative partition, a header without a name, or larger than
    ``kafka.max.request.size``) fails on its own at the TASK_PUT stage, before
    the write, through ``errors.tolerance`` and the dead-letter queue (see
    :mod:`connectors.kafka._record_checks`).
    """

    name = "kafka"
    aliases = ("KafkaSink",)
    config_def = (
        ConfigDef()
        .define("kafka.bootstrap.servers", ConfigType.STRING, REQUIRED, non_empty_string, Importance.HIGH,
                "Kafka brokers to connect to, host:port[,host:port...]. Every other kafka.* key "
                "(security settings, client tuning) goes to the Kafka producer with the prefix removed.")
        .define("topic", ConfigType.STRING, None, _topic_or_empty, Importance.HIGH,
                "Topic for records whose topic is null or empty.")
        .define("check.topics", ConfigType.BOOLEAN, True, None, Importance.MEDIUM,
                "Before writing, find every destination topic and fail, writing nothing, if one does "
                "not exist or a record has no topic. The output is cached to find them, so the "
                "pipeline runs once. Turn off for brokers that create topics on first use.")
        .define("keep.partition", ConfigType.BOOLEAN, False, None, Importance.LOW,
                "Write each record to the partition number it carries instead of letting the "
                "producer choose by key.")
        .define("check.timeout.ms", ConfigType.INT, 10000, at_least(1), Importance.LOW,
                "How long the up-front check of the cluster and topics waits for an answer.")
    ).merge(KAFKA_FILE_CONFIG)  # fmt: skip

    def configure(self, configs: Mapping[str, Any], context: PluginContext | None = None) -> None:
        super().configure(configs, context)
        self.kafka_params = kafka_params(self.raw_config)
        self._servers = self.kafka_params["bootstrap.servers"]
        # Topics seen to exist: later micro-batches to them skip the Admin round trip.
        self._known_topics: set[str] = set()
        self._reached = False
        self._record_checks = KafkaRecordChecks.from_settings(self.config, self.kafka_params, self.context.prefix)

    def record_errors(self, records):
        """Records the Kafka producer would refuse (see :mod:`connectors.kafka._record_checks`)."""
        return self._record_checks.record_errors(records)

    def spark_conf(self) -> dict[str, str]:
        return {"spark.jars": ",".join(spark_jars())}

    def check(self, spark: "SparkSession") -> None:
        """Fail now if the cluster does not answer or the default ``topic`` is missing.

        For callers that must know before anything is written anywhere (a
        pipeline checks its dead-letter sink before writing its output).
        Raises :class:`connectors.kafka.KafkaUnavailableError` or
        :class:`MissingTopicError` naming the servers and the topic.
        """
        existing = self._list_topics(spark)
        default = self.config["topic"]
        if existing is not None and default:
            require_topics([default], existing, self._servers, f"{self.context.prefix}topic")
            self._known_topics.add(default)

    def write(self, df: "DataFrame", batch_id: int | None = None) -> None:
        """Write ``df`` (Kafka row layout). Raises :class:`MissingTopicError`,
        :class:`connectors.kafka.KafkaUnavailableError` before writing, and
        :class:`KafkaWriteError` when Spark's write fails."""
        out = self._output_columns(df)
        if not self.config["check.topics"]:
            if not self._reached:
                self._list_topics(df.sparkSession)  # is the cluster there at all?
            self._save(out)
            return
        out = out.persist()
        try:
            self._check_destinations(out)
            self._save(out)
        finally:
            out.unpersist()

    def _output_columns(self, df: "DataFrame") -> "DataFrame":
        from pyspark.sql import functions as F

        topic = F.when(F.col("topic") == "", F.lit(None)).otherwise(F.col("topic"))
        if self.config["topic"]:
            topic = F.coalesce(topic, F.lit(self.config["topic"]))
        columns = [F.col("key"), F.col("value"), F.col("headers"), topic.alias("topic")]
        if self.config["keep.partition"]:
            columns.append(F.col("partition"))
        return df.select(*columns)

    def _list_topics(self, spark: "SparkSession") -> set[str] | None:
        existing = list_topics(
            spark,
            self.kafka_params,
            self.config["check.timeout.ms"],
            f"{self.context.prefix}kafka.bootstrap.servers",
        )
        self._reached = True
        return existing

    def _check_destinations(self, out: "DataFrame") -> None:
        destinations = {row[0] for row in out.select("topic").distinct().collect()}
        if None in destinations:
            raise MissingTopicError(
                f"{self.context.prefix}topic: some records have no topic and no default topic is set; "
                f"set {self.context.prefix}topic or route every record to a topic"
            )
        if self._reached and destinations <= self._known_topics:
            return
        existing = self._list_topics(out.sparkSession)
        if existing is not None:
            where = self.context.prefix.rstrip(".") or "sink"
            require_topics(destinations, existing, self._servers, where)
            self._known_topics |= destinations

    def _save(self, out: "DataFrame") -> None:
        try:
            out.write.format("kafka").options(**spark_kafka_options(self.raw_config)).save()
        except Exception as exc:
            raise KafkaWriteError(
                f"writing to the Kafka cluster at {self._servers} failed; records written before "
                f"the failure stay in Kafka: {kafka_error_summary(exc)}"
            ) from exc
