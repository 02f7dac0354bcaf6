"""``delivery.guarantee``: the Kafka sink's keys for exactly-once, their checks, and the driver's side of the write.

``at_least_once`` (the default) writes through Spark's Kafka connector.
``exactly_once`` writes each Spark task's records (and the dead letters of
the same task, when they go to a topic of the same cluster) in one Kafka
transaction, with the record's own timestamp; see
:mod:`connectors.kafka._transactional` for how a retry, a zombie attempt or
a replayed micro-batch is kept from writing twice.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import TYPE_CHECKING, Any, Mapping

from connectors.kafka._librdkafka import librdkafka_settings, producer_defaults
from connectors.kafka._preflight import KafkaUnavailableError
from connectors.kafka._record_checks import legal_topic_name
from connectors.kafka._subscription import same_cluster, server_addresses
from connectors.kafka._transactional import TASK_RESULT_DDL, TransactionalWrite, new_run_id
from smt.config import ConfigDef, ConfigType, Importance, one_of
from smt.errors import ConfigError, ConfigProblem

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = ["AT_LEAST_ONCE", "EXACTLY_ONCE", "ExactlyOnce", "TaskResults"]

AT_LEAST_ONCE = "at_least_once"
EXACTLY_ONCE = "exactly_once"

log = logging.getLogger(__name__)

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


@dataclasses.dataclass
class TaskResults:
    """What the writing tasks of one batch (or run) committed, summed."""

    records: int = 0
    dead_letters: int = 0
    tasks: int = 0
    skipped_tasks: int = 0


@dataclasses.dataclass
class ExactlyOnce:
    """The exactly-once write of one configured Kafka sink (built only when ``delivery.guarantee=exactly_once``)."""

    settings: Mapping[str, str]
    prefix: str
    markers_topic: str
    keep_partition: bool
    servers: str
    key_prefix: str
    _markers_ready: bool = False

    CONFIG = (
        ConfigDef()
        .define("delivery.guarantee", ConfigType.STRING, AT_LEAST_ONCE, one_of(AT_LEAST_ONCE, EXACTLY_ONCE),
                Importance.HIGH,
                "'at_least_once': through Spark's Kafka connector; a retried task or a replayed micro-batch "
                "writes its records again, and each record is written with the time of writing as its "
                "timestamp. 'exactly_once': each Spark task writes its records, and the dead letters of the "
                "same records, in one Kafka transaction (confluent-kafka), with the record's own timestamp; a "
                "consumer with isolation.level=read_committed sees each record once through task retries, "
                "zombie attempts and a killed driver restarted from its checkpoint. Needs "
                "transactional.id.prefix, and a dead-letter queue (if any) that is a topic of the same cluster.")
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
    ) -> "ExactlyOnce | None":
        """The exactly-once write the settings ask for, or None (at least once).

        Raises :class:`ConfigError` naming every key that breaks it: no
        ``transactional.id.prefix``, ``kafka.enable.idempotence=false``,
        ``kafka.acks`` other than ``all``/``-1``, a setting the producer cannot take.
        """
        if config["delivery.guarantee"] != EXACTLY_ONCE:
            return None
        guarantee = f"{key_prefix}delivery.guarantee={EXACTLY_ONCE}"
        try:
            import confluent_kafka  # noqa: F401  (on the executors too: they write)
        except ImportError:
            raise ConfigError.for_key(
                f"{key_prefix}delivery.guarantee",
                "exactly_once writes with confluent-kafka, which is not installed: run `pip install 'spark-smt[kafka]'`",
                EXACTLY_ONCE,
            ) from None
        problems = []
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
        try:
            settings = producer_defaults(librdkafka_settings(kafka_params, f"{key_prefix}kafka."))
        except ConfigError as exc:
            problems.extend(exc.problems)
        if problems:
            raise ConfigError(problems)
        return cls(
            settings=settings,
            prefix=config["transactional.id.prefix"],
            markers_topic=config["transactional.markers.topic"],
            keep_partition=config["keep.partition"],
            servers=kafka_params["bootstrap.servers"],
            key_prefix=key_prefix,
        )

    def check_dead_letters(self, dead_letters: Any) -> None:
        """Refuse a dead-letter queue outside this cluster: its dead letters could not share the transaction."""
        guarantee = f"with {self.key_prefix}delivery.guarantee={EXACTLY_ONCE}"
        topic = getattr(dead_letters, "topic", None)
        if topic is None:
            path = getattr(dead_letters, "path", "")
            raise ConfigError.for_key(
                "errors.deadletterqueue.path",
                f"{guarantee}, dead letters must go to a topic of the sink's Kafka cluster (set "
                "errors.deadletterqueue.topic.name), to be written in the same transactions as the records",
                path,
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
        and the dead-letter flag), one transaction per Spark task; what was committed comes back."""
        self._ensure_markers_topic()
        write = TransactionalWrite(
            settings=dict(self.settings),
            prefix=self.prefix,
            markers_topic=self.markers_topic,
            batch_id=0 if batch_id is None else batch_id,
            run=new_run_id() if batch_id is None else None,
            keep_partition=self.keep_partition,
            dead_letter_column=dead_letter_column,
        )
        results = TaskResults()
        for row in out.mapInArrow(write, TASK_RESULT_DDL).collect():
            results.records += row["records"]
            results.dead_letters += row["dead_letters"]
            results.tasks += 1
            results.skipped_tasks += bool(row["skipped"])
        where = "run" if batch_id is None else f"micro-batch {batch_id}"
        log.info(
            "%s: %s committed %d records and %d dead letters in %d transactions (%d tasks found theirs "
            "committed by an earlier attempt)", self.key_prefix.rstrip("."), where, results.records,
            results.dead_letters, results.tasks - results.skipped_tasks, results.skipped_tasks,
        )  # fmt: skip
        return results

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
