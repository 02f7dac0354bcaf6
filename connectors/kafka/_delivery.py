"""``delivery.guarantee`` and ``writer``: who writes the Kafka sink's records, their checks, the driver's side.

By default the records are written by the pipeline's Python tasks with
confluent-kafka (librdkafka), each with its own timestamp:
``at_least_once`` (the default) with an idempotent producer per task
(:mod:`connectors.kafka._at_least_once`), ``exactly_once`` with one Kafka
transaction per task holding its records and the dead letters of the same
records (:mod:`connectors.kafka._transactional`, which says how a retry, a
zombie attempt or a replayed micro-batch is kept from writing twice).
``writer=spark`` writes at least once through Spark's Kafka connector
instead, which writes no timestamps; ``writer=auto`` (the default) falls
back to it, with a warning, for ``kafka.*`` settings librdkafka cannot take.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import TYPE_CHECKING, Any, Mapping

from connectors.kafka._at_least_once import IdempotentWrite, idempotence_default
from connectors.kafka._librdkafka import librdkafka_settings, producer_defaults
from connectors.kafka._preflight import KafkaUnavailableError
from connectors.kafka._record_checks import legal_topic_name
from connectors.kafka._subscription import same_cluster, server_addresses
from connectors.kafka._task_write import TASK_RESULT_DDL, WriteInChainTask
from connectors.kafka._transactional import TransactionalWrite, deal_to_tasks, new_run_id, stream_task_count
from connectors.kafka.dead_letters import DEAD_LETTER_PREFIX, DEAD_LETTER_TOPIC_KEY, TopicDeadLetters
from smt.config import ConfigDef, ConfigType, Importance, one_of
from smt.connector_roles import TaskWriter
from smt.errors import ConfigError, ConfigProblem

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["AT_LEAST_ONCE", "EXACTLY_ONCE", "LibrdkafkaWriter", "TaskResults"]

AT_LEAST_ONCE = "at_least_once"
EXACTLY_ONCE = "exactly_once"

#: ``writer``: who sends the records.
AUTO = "auto"
LIBRDKAFKA = "librdkafka"
SPARK = "spark"

log = logging.getLogger(__name__)

#: confluent-kafka is a dependency of spark-smt: missing, it was left out of an environment by hand.
_INSTALL = "run `pip install confluent-kafka==2.16.1` where the pipeline runs (the driver and the executors)"
_PREFIX_CHARACTERS = re.compile(r"[A-Za-z0-9._-]+")


def _transactional_id_prefix(value: Any) -> None:
    if value is None:
        return
    if not _PREFIX_CHARACTERS.fullmatch(value):
        raise ValueError(
            "must be non-empty and use only ASCII letters, digits, '.', '_' and '-' (it names the "
            f"transactional ids and consumer groups of the sink's tasks); got '{value}'"
        )


def _topic_name(value: Any) -> None:
    legal_topic_name(value)


def _exactly_once_problems(config: Mapping[str, Any], kafka_params: Mapping[str, str], key_prefix: str) -> list:
    """The settings that rule out exactly-once, each named."""
    guarantee = f"{key_prefix}delivery.guarantee={EXACTLY_ONCE}"
    problems = []
    if config["writer"] == SPARK:
        problems.append(ConfigProblem(
            f"{key_prefix}writer", f"must be librdkafka (or auto) with {guarantee}: Spark's Kafka connector has no "
            "transactions", SPARK,
        ))  # fmt: skip
    if not config["transactional.id.prefix"]:
        problems.append(ConfigProblem(f"{key_prefix}transactional.id.prefix", f"is required with {guarantee}"))
    if kafka_params.get("enable.idempotence", "true").lower() != "true":
        problems.append(ConfigProblem(
            f"{key_prefix}kafka.enable.idempotence",
            f"must be true with {guarantee}: transactions need the idempotent producer",
            kafka_params["enable.idempotence"],
        ))  # fmt: skip
    if kafka_params.get("acks", "all").lower() not in ("all", "-1"):
        problems.append(ConfigProblem(
            f"{key_prefix}kafka.acks", f"must be all (or -1) with {guarantee}", kafka_params["acks"]
        ))  # fmt: skip
    return problems


def _fall_back(key_prefix: str, why: str) -> None:
    if key_prefix == DEAD_LETTER_PREFIX:  # no errors.deadletterqueue.writer: the key would name nothing
        log.warning(
            "%s: the dead letters are written through Spark's Kafka connector, whose records get the time of "
            "writing as their timestamp, because the Kafka producer of the Python writer cannot take the "
            "settings: %s (the dead-letter topic has no writer setting of its own, and does not follow "
            "sink.writer: change those settings to keep the dead letters' timestamps)",
            DEAD_LETTER_TOPIC_KEY, why,
        )  # fmt: skip
        return
    log.warning(
        "%swriter=%s: writing through Spark's Kafka connector, whose records get the time of writing as their "
        "timestamp, because the Kafka producer of the Python writer cannot take the settings: %s (set "
        "%swriter=spark to choose Spark's connector, or change the settings to keep the records' timestamps)",
        key_prefix, AUTO, why, key_prefix,
    )  # fmt: skip


def _dealt(df: "DataFrame") -> "DataFrame":
    return deal_to_tasks(df)[0]


@dataclasses.dataclass
class TaskResults:
    """What the writing tasks of one batch (or run) committed, summed."""

    records: int = 0
    dead_letters: int = 0
    tasks: int = 0
    skipped_tasks: int = 0


@dataclasses.dataclass
class LibrdkafkaWriter:
    """The Kafka sink's own write, by Python tasks with confluent-kafka (librdkafka), each record with its
    own timestamp: exactly once (one transaction per task) or at least once (an idempotent producer per task).

    Built only when the settings choose it (see :meth:`from_settings`); otherwise the sink writes through
    Spark's Kafka connector.
    """

    settings: Mapping[str, str]
    exactly_once: bool
    keep_partition: bool
    servers: str
    key_prefix: str
    prefix: str | None = None
    markers_topic: str | None = None
    _markers_ready: bool = False

    CONFIG = (
        ConfigDef()
        .define("delivery.guarantee", ConfigType.STRING, AT_LEAST_ONCE, one_of(AT_LEAST_ONCE, EXACTLY_ONCE),
                Importance.HIGH,
                "'at_least_once': a retried task or a replayed micro-batch writes its records again. "
                "'exactly_once': each Spark task writes its records, and the dead letters of the same "
                "records, in one Kafka transaction (confluent-kafka); a consumer with "
                "isolation.level=read_committed sees each record once through task retries, zombie attempts "
                "and a killed driver restarted from its checkpoint. Needs transactional.id.prefix, and a "
                "dead-letter queue (if any) that is a topic of the same cluster. Either way each record is "
                "written with its own timestamp, unless writer=spark.")
        .define("writer", ConfigType.STRING, AUTO, one_of(AUTO, LIBRDKAFKA, SPARK), Importance.MEDIUM,
                "Who sends the records. 'librdkafka': the pipeline's Python tasks, with confluent-kafka "
                "(librdkafka); each record keeps its own timestamp (CreateTime), and at_least_once uses an "
                "idempotent producer that fails the task (Spark retries it) unless every record is "
                "acknowledged. 'spark': Spark's Kafka connector, at_least_once only; records get the time "
                "of writing as their timestamp. 'auto': librdkafka, unless a kafka.* setting only Kafka's "
                "Java client takes (a JKS or PKCS12 trust store, a Java class) rules it out: then spark, "
                "with a warning naming the setting (exactly_once refuses it instead).")
        .define("transactional.id.prefix", ConfigType.STRING, None, _transactional_id_prefix, Importance.HIGH,
                "With delivery.guarantee=exactly_once (required there): task N of the write uses the "
                "transactional id and consumer group '<prefix>-N'. Give each pipeline its own prefix and keep "
                "it across restarts: two pipelines with one prefix fence each other.")
        .define("transactional.markers.topic", ConfigType.STRING, "smt-transaction-markers", _topic_name,
                Importance.LOW,
                "With delivery.guarantee=exactly_once: the topic whose partition 0 anchors each task's "
                "marker (a consumer-group offset committed in the task's transaction; nothing is written to "
                "the topic). Created with one partition when missing.")
    )  # fmt: skip

    @classmethod
    def from_settings(
        cls, config: Mapping[str, Any], kafka_params: Mapping[str, str], key_prefix: str
    ) -> "LibrdkafkaWriter | None":
        """The writer the settings ask for, or None: Spark's Kafka connector (``writer=spark``, or ``auto``
        with a setting librdkafka cannot take, which is logged as a warning).

        Raises :class:`ConfigError` naming every key that breaks the choice:
        with exactly-once no ``transactional.id.prefix``,
        ``kafka.enable.idempotence=false``, ``kafka.acks`` other than
        ``all``/``-1``, ``writer=spark``; with exactly-once or
        ``writer=librdkafka`` a setting the producer cannot take.
        """
        exactly_once = config["delivery.guarantee"] == EXACTLY_ONCE
        writer = config["writer"]
        if writer == SPARK and not exactly_once:
            return None
        try:
            import confluent_kafka  # noqa: F401  (on the executors too: they write)
        except ImportError:
            if writer == AUTO and not exactly_once:
                _fall_back(key_prefix, f"confluent-kafka is not installed ({_INSTALL})")
                return None
            chosen = "delivery.guarantee" if exactly_once else "writer"
            raise ConfigError.for_key(
                f"{key_prefix}{chosen}",
                f"writes with confluent-kafka, which is not installed: {_INSTALL}",
                config[chosen],
            ) from None
        problems = _exactly_once_problems(config, kafka_params, key_prefix) if exactly_once else []
        try:
            settings = producer_defaults(librdkafka_settings(kafka_params, f"{key_prefix}kafka."))
        except ConfigError as exc:
            if writer == AUTO and not exactly_once and not problems:
                _fall_back(key_prefix, "; ".join(map(str, exc.problems)))
                return None
            problems.extend(exc.problems)
        if problems:
            raise ConfigError(problems)
        return cls(
            settings=settings if exactly_once else idempotence_default(settings),
            exactly_once=exactly_once,
            keep_partition=config["keep.partition"],
            servers=kafka_params["bootstrap.servers"],
            key_prefix=key_prefix,
            prefix=config["transactional.id.prefix"],
            markers_topic=config["transactional.markers.topic"],
        )

    def check_dead_letters(self, dead_letters: Any) -> None:
        """With exactly-once, refuse a dead-letter queue outside this cluster: its dead letters could not
        share the transactions."""
        if not self.exactly_once:
            return
        guarantee = f"with {self.key_prefix}delivery.guarantee={EXACTLY_ONCE}"
        if not isinstance(dead_letters, TopicDeadLetters):
            where = dead_letters.output_paths().get("errors.deadletterqueue.path", "")
            raise ConfigError.for_key(
                "errors.deadletterqueue.path",
                f"{guarantee}, dead letters must go to a topic of the sink's Kafka cluster (set "
                "errors.deadletterqueue.topic.name), to be written in the same transactions as the records",
                where,
            )
        theirs = dead_letters.sink.kafka_params["bootstrap.servers"]
        if not same_cluster(server_addresses(theirs), server_addresses(self.servers)):
            raise ConfigError.for_key(
                "errors.deadletterqueue.kafka.bootstrap.servers",
                f"{guarantee}, the dead-letter topic must be on the sink's Kafka cluster ({self.servers}), to be "
                "written in the same transactions as the records",
                theirs,
            )

    def write(self, out: "DataFrame", batch_id: int | None, dead_letter_column: str | None = None) -> TaskResults:
        """Write ``out`` (``topic``, ``key``, ``value``, ``headers``, ``timestamp``, maybe ``partition``
        and, with exactly-once, the dead-letter flag) from Spark tasks; what they wrote comes back."""
        results = TaskResults()
        run = new_run_id() if batch_id is None else None
        for row in self._written(out, 0 if batch_id is None else batch_id, run, dead_letter_column).collect():
            results.records += row["records"]
            results.dead_letters += row["dead_letters"]
            results.tasks += 1
            results.skipped_tasks += bool(row["skipped"])
        where = "run" if batch_id is None else f"micro-batch {batch_id}"
        if self.exactly_once:
            log.info(
                "%s: %s committed %d records and %d dead letters in %d transactions (%d tasks found theirs "
                "committed by an earlier attempt)", self.key_prefix.rstrip("."), where, results.records,
                results.dead_letters, results.tasks - results.skipped_tasks, results.skipped_tasks,
            )  # fmt: skip
        else:
            log.info("%s: %s wrote %d records from %d tasks", self.key_prefix.rstrip("."), where,
                     results.records, results.tasks)  # fmt: skip
        return results

    def written_in_chain_task(
        self, spark: "SparkSession", topic: str | None, dead_letters: tuple[str, str] | None
    ) -> TaskWriter:
        """A stream's records written by the chain's own tasks (``topic``: where a record without one
        goes; ``dead_letters``: the flag column and the dead-letter topic, exactly once only).  Exactly
        once deals the source's records to its tasks first, as :meth:`write` deals the chain's output."""
        if not self.exactly_once:
            write = IdempotentWrite(settings=dict(self.settings), keep_partition=self.keep_partition)
            return TaskWriter(WriteInChainTask(write, topic))
        self._ensure_markers_topic()
        write = TransactionalWrite(
            settings=dict(self.settings),
            prefix=self.prefix,
            markers_topic=self.markers_topic,
            batch_id=None,
            keep_partition=self.keep_partition,
            dead_letter_column=dead_letters[0] if dead_letters else None,
            tasks=stream_task_count(spark),
        )
        return TaskWriter(WriteInChainTask(write, topic, dead_letters), deal=_dealt)

    def _written(
        self, out: "DataFrame", batch_id: int | None, run: str | None, dead_letter_column: str | None
    ) -> "DataFrame":
        if self.exactly_once:
            self._ensure_markers_topic()
            out, tasks = deal_to_tasks(out)
            write = TransactionalWrite(
                settings=dict(self.settings),
                prefix=self.prefix,
                markers_topic=self.markers_topic,
                batch_id=batch_id,
                run=run,
                keep_partition=self.keep_partition,
                dead_letter_column=dead_letter_column,
                tasks=tasks,
            )
        else:
            write = IdempotentWrite(settings=dict(self.settings), keep_partition=self.keep_partition)
        return out.mapInArrow(write, TASK_RESULT_DDL)

    def _ensure_markers_topic(self) -> None:
        if self._markers_ready:
            return
        from confluent_kafka import KafkaError, KafkaException
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient({k: v for k, v in self.settings.items() if k not in ("partitioner", "linger.ms")})
        topic = NewTopic(self.markers_topic, num_partitions=1, config={"cleanup.policy": "compact"})
        try:
            admin.create_topics([topic], operation_timeout=30)[self.markers_topic].result(60)
        except KafkaException as exc:
            if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise KafkaUnavailableError(
                    f"{self.key_prefix}transactional.markers.topic: cannot create '{self.markers_topic}' on the "
                    f"Kafka cluster at {self.servers}: {exc.args[0].str()}"
                ) from exc
        self._markers_ready = True
