"""The Kafka source: topics read through Spark's own Kafka connector."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, Mapping

from connectors.kafka._group_offsets import GroupOffsets, Offsets, offsets_json, parse_offsets
from connectors.kafka._jars import spark_jars
from connectors.kafka._options import KAFKA_FILE_CONFIG, KAFKA_PREFIX, kafka_params, offsets_spec, spark_kafka_options
from connectors.kafka._preflight import (
    MissingTopicError,
    kafka_error_summary,
    list_topics,
    require_topics,
)
from connectors.kafka._subscription import Subscription, server_addresses
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, at_least, non_empty_string
from smt.connector import Source
from smt.errors import ConfigError, SmtError
from smt.plugin import PluginContext
from smt.record import KAFKA_ROW_FIELDS

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["KafkaSource"]

_HEADERS_TYPE = "array<struct<key:string,value:binary>>"


class KafkaSource(Source):
    """Reads Kafka topics (by name or pattern) with Spark's Kafka connector, headers included.

    Every ``kafka.*`` key goes to the Kafka consumer with the prefix removed
    (``kafka.bootstrap.servers``, ``kafka.security.protocol``,
    ``kafka.sasl.jaas.config``, ...), as Spark's ``kafka.`` options do.  In
    batch mode it reads from ``starting.offsets`` to ``ending.offsets``; as a
    stream it resumes from the query's checkpoint, using ``starting.offsets``
    only on the first run.  After each committed batch run or micro-batch it
    commits the offsets just past what it read to the consumer group
    ``kafka.group.id`` (``connect-<name>`` by default, as Kafka Connect names a
    connector's group), so lag monitors see its progress and a batch run with
    ``starting.offsets=group`` goes on where the last one stopped.  Before
    reading, it checks that the cluster answers and that the topics exist, and
    fails naming them if not.
    """

    name = "kafka"
    aliases = ("KafkaSource",)
    supports_streaming = True
    checkpoint_keys = ("topics", "topic.pattern")
    config_def = (
        ConfigDef()
        .define("kafka.bootstrap.servers", ConfigType.STRING, REQUIRED, non_empty_string, Importance.HIGH,
                "Kafka brokers to connect to, host:port[,host:port...]. Every other kafka.* key "
                "(security settings, client tuning) goes to the Kafka consumer with the prefix removed.")
        .define("topics", ConfigType.LIST, [], None, Importance.HIGH,
                "Topics to read, comma-separated. Set this or topic.pattern.")
        .define("topic.pattern", ConfigType.STRING, None, None, Importance.HIGH,
                "A Java regular expression; every topic matching it is read. Set this or topics.")
        .define("starting.offsets", ConfigType.STRING, "earliest", offsets_spec("earliest", "latest", "group"),
                Importance.MEDIUM,
                "Where reading starts: earliest, latest, group (where the consumer group kafka.group.id "
                "committed, earliest for a partition it has no offset of: a batch rerun goes on where the last "
                "run stopped), or JSON such as "
                '{"events":{"0":23,"1":-2}} (-2 = earliest, -1 = latest). A streaming run uses it on its '
                "first run only; later runs resume from the checkpoint.")
        .define("kafka.group.id", ConfigType.STRING, None, None, Importance.MEDIUM,
                "The consumer group the source commits its progress to and starting.offsets=group reads; "
                "empty: connect-<name> (the pipeline's name), as Kafka Connect names a connector's group. "
                "Spark's own consumers are not in it.")
        .define("offsets.commit", ConfigType.BOOLEAN, True, None, Importance.MEDIUM,
                "After each committed batch run or micro-batch (records and dead letters written), commit the "
                "offsets just past the records it read to kafka.group.id, so kafka-consumer-groups and lag "
                "monitors see the pipeline's progress. A failed commit is logged; the records stay written.")
        .define("ending.offsets", ConfigType.STRING, "latest", offsets_spec("latest"), Importance.MEDIUM,
                "Batch mode only: where reading stops, latest or JSON as for starting.offsets.")
        .define("include.headers", ConfigType.BOOLEAN, True, None, Importance.MEDIUM,
                "Read record headers. When false, every record has no headers.")
        .define("fail.on.data.loss", ConfigType.BOOLEAN, True, None, Importance.LOW,
                "Fail when offsets are gone (deleted by retention) or topics were deleted.")
        .define("max.offsets.per.trigger", ConfigType.LONG, None, at_least(1), Importance.LOW,
                "Streaming only: at most this many records per micro-batch.")
        .define("check.timeout.ms", ConfigType.INT, 10000, at_least(1), Importance.LOW,
                "How long the up-front check of the cluster and topics waits for an answer.")
        .define_prefix(KAFKA_PREFIX, "Kafka client settings, given to the Kafka consumer with the prefix removed.")
    ).merge(KAFKA_FILE_CONFIG)  # fmt: skip

    def configure(self, configs: Mapping[str, Any], context: PluginContext | None = None) -> None:
        super().configure(configs, context)
        prefix = self.context.prefix
        topics, pattern = self.config["topics"], self.config["topic.pattern"]
        if bool(topics) == bool(pattern):
            raise ConfigError.for_key(f"{prefix}topics", f"set exactly one of {prefix}topics and {prefix}topic.pattern")
        if any(not topic for topic in topics):
            raise ConfigError.for_key(f"{prefix}topics", "must not contain an empty topic name", topics)
        if pattern:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ConfigError.for_key(
                    f"{prefix}topic.pattern", f"is not a valid regular expression: {exc}", pattern
                ) from exc
        self.kafka_params = kafka_params(self.raw_config)
        #: Where a batch run reads up to, resolved once on the driver (what it commits afterwards).
        self._read_until: Offsets | None = None
        self._check_group_reachable()

    def _check_group_reachable(self) -> None:
        """``starting.offsets=group`` needs the group's consumer; without it, progress goes uncommitted (warned)."""
        #: Why the group's consumer cannot take the source's settings (judged once), or None.
        self._group_unreachable = unreachable = self.group.unreachable
        if unreachable is None:
            return
        if self.config["starting.offsets"] == "group":
            raise ConfigError.for_key(
                f"{self.context.prefix}starting.offsets",
                f"'group' reads the group's offsets with librdkafka, which cannot take the settings: {unreachable}",
                "group",
            )
        if self.config["offsets.commit"]:
            self.context.logger("source").warning(
                "%soffsets.commit: the source's progress is not committed to its consumer group, because "
                "librdkafka cannot take the settings (%s); set %soffsets.commit=false to silence this",
                self.context.prefix, unreachable, self.context.prefix,
            )  # fmt: skip

    @functools.cached_property
    def group(self) -> GroupOffsets:
        """The source's consumer group (``kafka.group.id``, else ``connect-<pipeline name>``)."""
        group_id = self.config["kafka.group.id"] or f"connect-{self.context.pipeline or 'smt-pipeline'}"
        prefix = f"{self.context.prefix}kafka."
        return GroupOffsets(self.kafka_params, group_id, prefix, f"{prefix}group.id")

    def committed(self, end_offsets: Any = None) -> None:
        """Commit what was read (a batch run's resolved end, or the micro-batch's end) to the group."""
        if not self.config["offsets.commit"] or self._group_unreachable is not None:
            return
        offsets = parse_offsets(end_offsets) if end_offsets is not None else self._read_until
        if offsets:
            self.group.commit(offsets)

    def subscription(self) -> Subscription:
        """The topics this source reads, and from which servers."""
        return Subscription(
            servers=server_addresses(self.kafka_params["bootstrap.servers"]),
            topics=frozenset(self.config["topics"]),
            pattern=self.config["topic.pattern"],
        )

    def spark_conf(self) -> dict[str, str]:
        return {"spark.jars": ",".join(spark_jars())}

    @classmethod
    def compiled_form(cls) -> str:
        """What the compiled path reads with Spark (:class:`smt.compiled.CompiledStage`)."""
        return "batch runs; streaming runs of bytes, kept in the JVM"

    def read(self, spark: "SparkSession", streaming: bool = False) -> "DataFrame":
        self._check_topics(spark, streaming)
        reader = (spark.readStream if streaming else spark.read).format("kafka")
        reader = reader.options(**{**self._spark_options(streaming), **self._resolved_offsets(streaming)})
        try:
            df = reader.load()
        except Exception as exc:
            raise SmtError(
                f"{self.context.prefix.rstrip('.') or 'source'}: Spark's Kafka source rejected the configuration: "
                f"{kafka_error_summary(exc)}"
            ) from exc
        return _in_row_layout(df)

    def _spark_options(self, streaming: bool) -> dict[str, str]:
        config = self.config
        options = spark_kafka_options(self.raw_config)
        # Ours, for committing progress; Spark would name its own consumers' group after it.
        options.pop("kafka.group.id", None)
        if config["topics"]:
            options["subscribe"] = ",".join(config["topics"])
        else:
            options["subscribePattern"] = config["topic.pattern"]
        options["startingOffsets"] = config["starting.offsets"]
        if not streaming:
            options["endingOffsets"] = config["ending.offsets"]
        elif config["max.offsets.per.trigger"] is not None:
            options["maxOffsetsPerTrigger"] = str(config["max.offsets.per.trigger"])
        options["includeHeaders"] = str(config["include.headers"]).lower()
        options["failOnDataLoss"] = str(config["fail.on.data.loss"]).lower()
        return options

    def _resolved_offsets(self, streaming: bool) -> dict[str, str]:
        """The offsets options resolved against the cluster: the group's (``starting.offsets=group``), and a
        batch run's end, resolved once, so that what it commits afterwards is what it read."""
        config, resolved = self.config, {}
        if (config["starting.offsets"] != "group" and streaming) or self._group_unreachable is not None:
            return resolved  # a batch run then reads to Spark's own ending.offsets, and commits nothing
        partitions = self.group.partitions(config["topics"], config["topic.pattern"])
        if config["starting.offsets"] == "group":
            resolved["startingOffsets"] = offsets_json(self.group.committed(partitions))
        if not streaming:
            if self._read_until is None:  # once: a second read of the run reads the same records
                self._read_until = self._resolved_end(partitions)
            resolved["endingOffsets"] = offsets_json(self._read_until)
        return resolved

    def _resolved_end(self, partitions: list[tuple[str, int]]) -> Offsets:
        """``ending.offsets`` with each ``latest`` (the keyword, or -1) as the partition's end now."""
        ends = self.group.ends(partitions)
        if self.config["ending.offsets"] == "latest":
            return ends
        given = parse_offsets(self.config["ending.offsets"])
        return {
            topic: {p: (ends.get(topic, {}).get(p, 0) if offset == -1 else offset) for p, offset in parts.items()}
            for topic, parts in given.items()
        }

    def _check_topics(self, spark: "SparkSession", streaming: bool) -> None:
        prefix = self.context.prefix
        servers = self.kafka_params["bootstrap.servers"]
        existing = list_topics(
            spark, self.kafka_params, self.config["check.timeout.ms"], f"{prefix}kafka.bootstrap.servers"
        )
        if existing is None:
            return
        if self.config["topics"]:
            require_topics(self.config["topics"], existing, servers, f"{prefix}topics")
            return
        # A stream may subscribe to a pattern before its topics exist; a batch would read nothing.
        pattern = re.compile(self.config["topic.pattern"])
        if not streaming and not any(pattern.fullmatch(topic) for topic in existing):
            raise MissingTopicError(
                f"{prefix}topic.pattern: no topic on the Kafka cluster at {servers} "
                f"matches '{self.config['topic.pattern']}'"
            )


def _in_row_layout(df: "DataFrame") -> "DataFrame":
    """``df`` with exactly the Kafka row columns, in order (headers null if not read)."""
    from pyspark.sql import functions as F

    if "headers" not in df.columns:
        df = df.withColumn("headers", F.lit(None).cast(_HEADERS_TYPE))
    return df.select(*KAFKA_ROW_FIELDS)
