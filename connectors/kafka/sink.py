"""The Kafka sink: records written by the pipeline's Python tasks (librdkafka) or Spark's own Kafka connector."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable, Mapping

import pyarrow as pa
import pyarrow.compute as pc

from connectors.kafka._batch_write import write_kafka_batch
from connectors.kafka._delivery import LibrdkafkaWriter
from connectors.kafka._jars import spark_jars
from connectors.kafka._options import KAFKA_FILE_CONFIG, KAFKA_PREFIX, kafka_params, spark_kafka_options
from connectors.kafka._preflight import (
    KafkaWriteError,
    MissingTopicError,
    kafka_job_failure,
    list_topics,
    require_topics,
)
from connectors.kafka._record_checks import KafkaRecordChecks, legal_topic_name
from connectors.kafka._subscription import Subscription, same_cluster, server_addresses
from connectors.kafka.source import KafkaSource
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, at_least, non_empty_string
from smt.connector import DEAD_LETTERS_PART, SINK_PART, Sink, SinkContext
from smt.connector_roles import RecordChecks, TaskWrite
from smt.errors import ConfigError, SmtError
from smt.plugin import PluginContext
from smt.record import KAFKA_ROW_TYPES

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from pyspark.sql import DataFrame, SparkSession

    from smt.connector import Source

__all__ = ["KafkaSink", "KafkaWriteError"]


def _topic_or_empty(name: str) -> None:
    if name:
        legal_topic_name(name)


class KafkaSink(Sink, RecordChecks, TaskWrite):
    """Writes each record's key, value, headers and timestamp to its topic.

    ``topic`` is the destination of every record whose topic the chain did
    not change (and of records with no topic); a record a transform routed
    (``set_topic``, ``RegexRouter``, ``TimestampRouter``, ...) goes to its new
    topic.  Without ``topic`` every record keeps its own.  Unlike Spark's own
    ``topic`` option, which overrides every row, it never undoes routing.
    The sink never writes into a topic that its pipeline reads from the same
    cluster (unless ``allow.source.topics``): such a record fails on its own
    at TASK_PUT.  The partition is left to the producer (by key) unless
    ``keep.partition`` is set.  Every ``kafka.*`` key goes to the Kafka
    producer with the prefix removed.

    By default the pipeline's Python tasks send the records with
    confluent-kafka (librdkafka), each with its own timestamp.  With
    ``delivery.guarantee=at_least_once`` (the default) a task or micro-batch
    that fails and is retried writes its records again, and a write that
    fails half-way leaves the records already sent in Kafka; with
    ``exactly_once`` each Spark task writes its records and their dead
    letters in one Kafka transaction.  ``writer=spark`` writes at least once
    through Spark's Kafka sink, which gives every record the time of writing
    as its timestamp (see :mod:`connectors.kafka._delivery`).  What can be checked up front is checked before
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
    #: What a streaming checkpoint is bound to: the cluster, the destination and, for exactly-once,
    #: the transactional ids and markers that say which micro-batches were committed.  Client
    #: tuning (kafka.linger.ms, ...) may change between restarts.
    checkpoint_keys = (
        "kafka.bootstrap.servers",
        "topic",
        "delivery.guarantee",
        "transactional.id.prefix",
        "transactional.markers.topic",
    )
    config_def = (
        ConfigDef()
        .define("kafka.bootstrap.servers", ConfigType.STRING, REQUIRED, non_empty_string, Importance.HIGH,
                "Kafka brokers to connect to, host:port[,host:port...]. Every other kafka.* key "
                "(security settings, client tuning) goes to the Kafka producer with the prefix removed.")
        .define("topic", ConfigType.STRING, None, _topic_or_empty, Importance.HIGH,
                "Destination of every record whose topic the chain did not change, and of records "
                "with no topic; a record a transform routed keeps its new topic. Unset: every record "
                "keeps its own topic (for records read from Kafka, the topic they were read from).")
        .define("allow.source.topics", ConfigType.BOOLEAN, False, None, Importance.LOW,
                "Allow writing into topics that the pipeline's Kafka source reads from the same "
                "cluster (same bootstrap server). Off: such a record fails at TASK_PUT, through "
                "errors.tolerance and the dead-letter queue, and a pipeline that could only write "
                "there is refused up front.")
        .define("check.topics", ConfigType.BOOLEAN, True, None, Importance.MEDIUM,
                "Before writing, find every destination topic and fail, writing nothing, if one does "
                "not exist or a record has no topic. Unless every record goes to topic (no transform "
                "can route), the output is cached to find them, so the pipeline runs once. Turn off "
                "for brokers that create topics on first use.")
        .define("keep.partition", ConfigType.BOOLEAN, False, None, Importance.LOW,
                "Write each record to the partition number it carries instead of letting the "
                "producer choose by key.")
        .define("check.timeout.ms", ConfigType.INT, 10000, at_least(1), Importance.LOW,
                "How long the up-front check of the cluster and topics waits for an answer.")
        .merge(LibrdkafkaWriter.CONFIG)
        .define_prefix(KAFKA_PREFIX, "Kafka client settings, given to the Kafka producer with the prefix removed.")
    ).merge(KAFKA_FILE_CONFIG)  # fmt: skip

    def configure(self, configs: Mapping[str, Any], context: PluginContext | None = None) -> None:
        super().configure(configs, context)
        self.kafka_params = kafka_params(self.raw_config)
        self._servers = self.kafka_params["bootstrap.servers"]
        # Topics seen to exist: later micro-batches to them skip the Admin round trip.
        self._known_topics: set[str] = set()
        self._reached = False
        #: The one destination of every record, when the chain cannot route (see open).
        self._only_topic: str | None = None
        self._record_checks = KafkaRecordChecks.from_settings(self.config, self.kafka_params, self.context.prefix)
        #: The Python tasks' write (None: Spark's Kafka connector writes).
        self._librdkafka = LibrdkafkaWriter.from_settings(self.config, self.kafka_params, self.context.prefix)

    def output_fields(self) -> frozenset[str]:
        """What the writer takes: key, value, headers, topic, the timestamp (unless Spark's
        connector writes, which takes none) and the partition when kept, or with exactly-once
        (which deals records to its tasks by the partition they were read from).

        The topic is left out when every record goes to ``topic`` anyway.
        """
        fields = {"key", "value", "headers"}
        if self._only_topic is None:
            fields.add("topic")
        if self._deals_by_partition():
            fields.add("partition")
        if self._librdkafka is not None:
            fields.add("timestamp")
        return frozenset(fields)

    def open(self, context: SinkContext) -> None:
        """Refuse records bound for the topics a Kafka source on the same cluster reads, and, with
        exactly-once, dead letters that cannot share the records' transactions.

        Raises :class:`ConfigError` when ``topic`` is one of the source's topics, or when it is unset
        and no transform can route records (every record would go back where it was read); and
        naming ``errors.deadletterqueue.path`` (a file queue) or
        ``errors.deadletterqueue.kafka.bootstrap.servers`` (another cluster).
        """
        problems = []
        try:
            if context.source is not None:
                self._see_source(context.source, context.may_route)
        except ConfigError as exc:
            problems += exc.problems
        try:
            if self._librdkafka is not None and context.dead_letters is not None:
                self._librdkafka.check_dead_letters(context.dead_letters)
        except ConfigError as exc:
            problems += exc.problems
        if problems:
            raise ConfigError(problems)

    def _see_source(self, source: "Source", may_route: bool) -> None:
        # With no transform that can route, every record goes to ``topic`` (when
        # set): its topic need not travel through Python and back, and the
        # destination is checked without running the pipeline first.
        self._only_topic = None if may_route else self.config["topic"]
        if self.config["allow.source.topics"] or not isinstance(source, KafkaSource):
            return
        read = source.subscription()
        if not same_cluster(read.servers, server_addresses(self._servers)):
            return
        self._record_checks = dataclasses.replace(self._record_checks, source_topics=read)
        self._refuse_writing_back(read, may_route)

    def _refuse_writing_back(self, read: Subscription, may_route: bool) -> None:
        key, default = f"{self.context.prefix}topic", self.config["topic"]
        allow = f"{self.context.prefix}allow.source.topics=true"
        if default and read.reads(default):
            raise ConfigError.for_key(
                key,
                f"'{default}' is read by this pipeline's source ({read.describe()}) from the same Kafka "
                f"cluster; choose another topic, or set {allow}",
                default,
            )
        if not default and not may_route:
            raise ConfigError.for_key(
                key,
                f"is not set and no transform can change a record's topic, so every record would be "
                f"written back into the topic it was read from ({read.describe()}, same Kafka cluster); set "
                f"{key}, route records with a transform such as RegexRouter, or set {allow}",
            )

    def prepare_records(self, records: pa.RecordBatch, routed: "np.ndarray") -> pa.RecordBatch:
        """Records the chain did not route (and records with no topic) get ``topic``; no headers are null."""
        names = records.schema.names
        if "headers" in names:
            records = records.set_column(names.index("headers"), "headers", _null_when_empty(records.column("headers")))
        default = self.config["topic"]
        if not default or "topic" not in names:
            return records
        topics = records.column("topic")
        keep = pc.and_(pa.array(routed, pa.bool_()), pc.fill_null(pc.not_equal(topics, ""), False))
        return records.set_column(
            names.index("topic"), "topic", pc.if_else(keep, topics, pa.scalar(default, pa.string()))
        )

    def record_errors(self, records):
        """Records the Kafka producer would refuse, or bound for a source topic
        (see :mod:`connectors.kafka._record_checks`)."""
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
        :class:`KafkaWriteError` when the write fails."""
        self._write_checked(self._output_columns(df), batch_id)

    def write_with_dead_letters(
        self,
        df: "DataFrame",
        dead_letters: Any,
        flag: str,
        batch_id: int | None = None,
        written: Callable[[str], None] = lambda part: None,
    ) -> None:
        """With exactly-once, each task writes its records and dead letters in one transaction
        (:meth:`open` made sure they go to a topic of this cluster); else as every sink does."""
        if self._librdkafka is None or not self._librdkafka.exactly_once:
            super().write_with_dead_letters(df, dead_letters, flag, batch_id, written)
            return
        from pyspark.sql import functions as F

        out = self._output_columns(df.where(F.col(flag).isNotNull()), dead_letter=(flag, dead_letters.topic))
        self._write_checked(out, batch_id, flag)
        written(SINK_PART)  # both, in the same transactions
        written(DEAD_LETTERS_PART)

    def stream_writer(self, df: "DataFrame", dead_letters: Any, flag: str | None):
        """Inside the streaming query, Spark's Kafka connector (the Python writers write in the chain's own
        tasks instead: :meth:`task_writer`); the destination is checked first.  None (a write per
        micro-batch from the driver) as :meth:`_written_without_the_driver` says."""
        if self._librdkafka is not None or not self._written_without_the_driver(dead_letters):
            return None
        self._check_before_running(df.sparkSession)
        return self._output_columns(df).writeStream.format("kafka").options(**spark_kafka_options(self.raw_config))

    def task_writer(self, spark: "SparkSession", dead_letters: Any, flag: str | None):
        """In the chain's own tasks, the Python writers: at least once, or exactly once with the dead
        letters in the same transactions; the destination is checked first.  None with Spark's
        connector (:meth:`stream_writer`), and as :meth:`_written_without_the_driver` says."""
        if self._librdkafka is None or not self._written_without_the_driver(dead_letters):
            return None
        self._check_before_running(spark)
        routed = (flag, dead_letters.topic) if dead_letters is not None else None
        return self._librdkafka.written_in_chain_task(spark, self.config["topic"] or None, routed)

    @classmethod
    def compiled_form(cls) -> str:
        """What the JVM streaming path writes (:class:`smt.compiled.CompiledStage`)."""
        return "streaming runs of bytes to one topic, writer=spark"

    def jvm_stream_problem(self) -> str | None:
        """Why this sink cannot write a stream without Python (:class:`smt.connector_roles.JvmStreamWrite`)."""
        prefix = self.context.prefix
        if self._librdkafka is not None:
            return f"{prefix}writer=librdkafka (the default) writes from Python; {prefix}writer=spark writes in the JVM"
        if self._only_topic is None:
            return f"{prefix}topic is not set, or a transform can route records: their topics are checked in Python"
        return None

    def jvm_stream_writer(self, records: "DataFrame"):
        """Every record to ``topic``, the one destination when no transform can route (see ``open``)."""
        from pyspark.sql import functions as F

        return self.stream_writer(records.withColumn("topic", F.lit(self._only_topic)), None, None)

    def _written_without_the_driver(self, dead_letters: Any) -> bool:
        """Whether a stream's micro-batches can be written without a step on the driver: not when their
        topics must be checked as they come (``check.topics`` with a chain that can route), nor with
        dead letters at least once."""
        if self.config["check.topics"] and self._only_topic is None:
            return False
        return dead_letters is None or (self._librdkafka is not None and self._librdkafka.exactly_once)

    def stream_failure(self, error: BaseException) -> BaseException:
        """What failed, as a write from the driver says it (:func:`kafka_job_failure`)."""
        return error if isinstance(error, SmtError) else KafkaWriteError(kafka_job_failure(error, self._servers))

    def _write_checked(self, out: "DataFrame", batch_id: int | None, flag: str | None = None) -> None:
        if not self.config["check.topics"] or self._only_topic is not None:
            self._check_before_running(out.sparkSession)
            self._save(out, batch_id, flag)
            return
        out = out.persist()
        try:
            self._check_destinations(out)
            self._save(out, batch_id, flag)
        finally:
            out.unpersist()

    def _deals_by_partition(self) -> bool:
        """Whether the records' partition is written (kept) or used: exactly-once deals records to its tasks
        by the partition they were read from (see :mod:`connectors.kafka._transactional`)."""
        return self.config["keep.partition"] or (self._librdkafka is not None and self._librdkafka.exactly_once)

    def _output_columns(self, df: "DataFrame", dead_letter: tuple[str, str] | None = None) -> "DataFrame":
        """The columns written; with ``dead_letter`` (flag column, topic) the flagged rows go to that topic."""
        from pyspark.sql import functions as F

        topic = F.col("topic") if "topic" in df.columns else F.lit(None).cast("string")
        topic = F.when(topic == "", F.lit(None)).otherwise(topic)
        if self.config["topic"]:
            topic = F.coalesce(topic, F.lit(self.config["topic"]))
        headers = F.col("headers")
        if self._librdkafka is not None:
            # Into Python as empty lists: Spark's Arrow writer takes time per row for null lists
            # (see smt.pipeline.runner), ten times the whole write here.
            headers = F.coalesce(headers, F.array().cast(KAFKA_ROW_TYPES["headers"])).alias("headers")
        columns = [F.col("key"), F.col("value"), headers]
        if self._deals_by_partition():
            columns.append(F.col("partition"))
        if self._librdkafka is not None:
            columns.append(F.col("timestamp"))
        if dead_letter is not None:
            flag, dead_letter_topic = dead_letter
            topic = F.when(F.col(flag), F.lit(dead_letter_topic)).otherwise(topic)
            columns.append(F.col(flag))
        return df.select(*columns, topic.alias("topic"))

    def _list_topics(self, spark: "SparkSession") -> set[str] | None:
        existing = list_topics(
            spark,
            self.kafka_params,
            self.config["check.timeout.ms"],
            f"{self.context.prefix}kafka.bootstrap.servers",
        )
        self._reached = True
        return existing

    def _check_before_running(self, spark: "SparkSession") -> None:
        """What can be known before the records exist: the cluster answers, and the one destination exists."""
        wanted = {self._only_topic} if self._only_topic and self.config["check.topics"] else set()
        if self._reached and wanted <= self._known_topics:
            return
        existing = self._list_topics(spark)
        if existing is not None and wanted:
            require_topics(wanted, existing, self._servers, f"{self.context.prefix}topic")
            self._known_topics |= wanted

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

    def _save(self, out: "DataFrame", batch_id: int | None, flag: str | None) -> None:
        try:
            if self._librdkafka is not None:
                self._librdkafka.write(out, batch_id, flag)
            else:
                write_kafka_batch(out, spark_kafka_options(self.raw_config))
        except SmtError:
            raise
        except Exception as exc:  # the Spark job failed: say whether writing, reading or a record did
            raise KafkaWriteError(kafka_job_failure(exc, self._servers)) from exc


def _null_when_empty(headers: pa.Array) -> pa.Array:
    """The headers column with each empty list made null (the same to Kafka: no headers).

    Spark reads a column of empty lists back from Arrow at a cost per row;
    nulls it skips.  (Into Python the opposite holds, see smt.pipeline.runner.)
    """
    offsets = headers.offsets.to_numpy()
    empty = offsets[1:] == offsets[:-1]
    if headers.null_count:
        empty |= headers.is_null().to_numpy(zero_copy_only=False)
    if not empty.any():
        return headers
    first, last = int(offsets[0]), int(offsets[-1])
    return pa.ListArray.from_arrays(
        pa.array(offsets - first, pa.int32()),
        headers.values.slice(first, last - first),
        type=headers.type,
        mask=pa.array(empty),
    )
