"""The Kafka source's consumer group: the offsets a run has durably written, committed as Kafka Connect does.

Spark's Kafka source never commits offsets: it keeps them in a streaming query's checkpoint, and a
batch run remembers nothing.  Kafka Connect's users watch a connector's progress as the lag of its
group (``connect-<name>``), and expect a rerun to go on where the last one stopped.  So after each
committed batch run or micro-batch, the source commits the offsets just past the records it read to
its group (``kafka.group.id``), and a batch run with ``starting.offsets=group`` starts there.

A batch run reads up to offsets resolved once on the driver (each partition's end when the run
starts, for ``ending.offsets=latest``): what it commits is exactly what it read.
"""

from __future__ import annotations

import ast
import json
import logging
import re
import time
import weakref
from typing import Any, Callable, Iterable, Mapping, TypeVar

from connectors.kafka._librdkafka import librdkafka_settings
from smt.errors import ConfigError, SmtError

__all__ = ["EARLIEST", "GroupOffsets", "Offsets", "offsets_json", "parse_offsets"]

log = logging.getLogger(__name__)

#: topic -> partition -> offset (the next record to read), as Spark's offsets JSON maps them.
Offsets = dict[str, dict[int, int]]
#: Spark's and librdkafka's logical offset of a partition's first record.
EARLIEST = -2
_TIMEOUT_S = 30.0
_T = TypeVar("_T")


def offsets_json(offsets: Offsets) -> str:
    """``offsets`` as Spark's ``startingOffsets`` / ``endingOffsets`` JSON."""
    return json.dumps(
        {topic: {str(p): o for p, o in sorted(parts.items())} for topic, parts in sorted(offsets.items())}
    )


#: The client settings the group's consumer takes from the source's: where the cluster is and how to
#: reach it (the consumer tuning keys are Spark's consumers', in Java's names librdkafka lacks).
_CONNECTION_SETTINGS = re.compile(r"bootstrap\.servers|client\.id|security\.protocol|sasl\..*|ssl\..*")


class GroupOffsets:
    """One consumer group's committed offsets on the cluster that ``params`` (the source's Java-style client
    settings, ``kafka.`` removed) reach; ``prefix`` (``source.kafka.``) and ``key`` name settings in errors."""

    def __init__(self, params: Mapping[str, str], group_id: str, prefix: str, key: str) -> None:
        self.params = {name: value for name, value in params.items() if _CONNECTION_SETTINGS.fullmatch(name)}
        self.group_id = group_id
        self.prefix = prefix
        self.key = key
        #: The consumer :meth:`commit` keeps between commits (a streaming run commits after each micro-batch:
        #: a new consumer would look up the group's coordinator each time, 60 to 500 ms of the driver's CPU).
        self._committer: Any = None
        #: Closes it once: by :meth:`close`, or when this object is collected.
        self._close_committer: weakref.finalize | None = None

    def __getstate__(self) -> dict[str, Any]:
        # A consumer stays in the process that made it.
        return {**self.__dict__, "_committer": None, "_close_committer": None}

    def close(self) -> None:
        """Close the consumer kept for commits (the next commit makes another)."""
        if self._close_committer is not None:
            self._close_committer()
        self._committer = self._close_committer = None

    @property
    def unreachable(self) -> ConfigError | None:
        """Why the group's consumer (librdkafka) cannot take the source's settings, if it cannot: a Java
        truststore (JKS, PKCS12), which Spark's Java consumers read and librdkafka does not."""
        try:
            librdkafka_settings(self.params, self.prefix)
        except ConfigError as exc:
            return exc
        return None

    def _consumer(self):
        settings = librdkafka_settings(self.params, self.prefix)
        settings.update({"group.id": self.group_id, "enable.auto.commit": False})
        return _kafka().Consumer(settings)

    def partitions(self, topics: Iterable[str] | None, pattern: str | None) -> list[tuple[str, int]]:
        """Every (topic, partition) of ``topics``, or of the topics matching ``pattern`` (internal left out)."""
        consumer = self._consumer()
        try:
            metadata = consumer.list_topics(timeout=_TIMEOUT_S)
        finally:
            consumer.close()
        wanted = set(topics or ())
        matcher = re.compile(pattern) if pattern else None
        return sorted(
            (name, partition)
            for name, topic in metadata.topics.items()
            if (name in wanted or (matcher is not None and matcher.fullmatch(name) and not name.startswith("__")))
            for partition in topic.partitions
        )

    def ends(self, partitions: Iterable[tuple[str, int]]) -> Offsets:
        """Each partition's end (the offset its next record will have) now."""
        consumer = self._consumer()
        ends: Offsets = {}
        try:
            for topic, partition in partitions:
                _, high = consumer.get_watermark_offsets(_kafka().TopicPartition(topic, partition), timeout=_TIMEOUT_S)
                ends.setdefault(topic, {})[partition] = high
        finally:
            consumer.close()
        return ends

    def committed(self, partitions: Iterable[tuple[str, int]]) -> Offsets:
        """The group's committed offset of each partition; :data:`EARLIEST` where it committed none."""
        consumer = self._consumer()
        wanted = [_kafka().TopicPartition(t, p) for t, p in partitions]
        try:
            found = _retrying(lambda: consumer.committed(wanted, timeout=_TIMEOUT_S))
        except Exception as exc:
            raise SmtError(f"{self.key}: cannot read the committed offsets of group '{self.group_id}': {exc}") from exc
        finally:
            consumer.close()
        offsets: Offsets = {}
        for tp in found:
            offsets.setdefault(tp.topic, {})[tp.partition] = tp.offset if tp.offset >= 0 else EARLIEST
        return offsets

    def commit(self, offsets: Offsets) -> None:
        """Commit ``offsets`` for the group; a failure is logged, not raised: the records are written, and
        the next commit (or a rerun's checkpoint) carries the progress on."""
        positions = [
            _kafka().TopicPartition(t, p, o) for t, parts in offsets.items() for p, o in parts.items() if o >= 0
        ]
        if not positions:
            return
        if self._committer is None:
            self._committer = self._consumer()
            self._close_committer = weakref.finalize(self, self._committer.close)
        try:
            _retrying(lambda: self._committer.commit(offsets=positions, asynchronous=False))
        except Exception as exc:
            log.warning("%s: could not commit the offsets written to group '%s': %s", self.key, self.group_id, exc)
            self.close()  # the next commit starts from a new consumer


def parse_offsets(offsets: Any) -> Offsets:
    """Spark's offsets (a micro-batch's ``endOffset``, an ``ending.offsets`` setting: JSON text or an object
    of topic -> partition -> offset) as :data:`Offsets`.

    PySpark 4.1's progress reports give a source's offsets as the Python text of a dict
    (``SourceProgress.fromJson`` applies ``str`` to the parsed JSON), which is read as such.
    """
    parsed = _offsets_text(offsets) if isinstance(offsets, str) else offsets
    return {topic: {int(p): int(o) for p, o in parts.items()} for topic, parts in (parsed or {}).items()}


def _offsets_text(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return ast.literal_eval(text)


def _retrying(call: Callable[[], _T]) -> _T:
    """``call()``, again while it fails with an error Kafka calls retriable (a group's coordinator still
    being chosen or loaded: NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS), for up to the timeout."""
    deadline = time.monotonic() + _TIMEOUT_S
    while True:
        try:
            return call()
        except _kafka().KafkaException as exc:
            error = exc.args[0] if exc.args else None
            if not (hasattr(error, "retriable") and error.retriable()) or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _kafka():
    """confluent-kafka, loaded when a group is first used (it takes a tenth of a second to import)."""
    import confluent_kafka

    return confluent_kafka
