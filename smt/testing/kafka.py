"""Pytest fixtures for a real Kafka broker.

``kafka_broker`` (session-scoped) starts the single-node broker of
:mod:`smt.local.kafka` in a temporary state folder, hands tests a
:class:`KafkaTestBroker` to create topics, produce and consume (and
:meth:`~KafkaTestBroker.restart` the broker), and stops the broker when the
session ends.  Set ``SMT_TEST_KAFKA_BOOTSTRAP_SERVERS`` to
use a broker that is already running instead.

For a secured broker, :func:`local_broker` starts one with a
:class:`smt.local.kafka.BrokerSecurity` (SASL/PLAIN users, TLS listeners) and
:meth:`KafkaTestBroker.connected_to` gives a client of one of its listeners,
as one user; every admin, producer and consumer it makes uses those settings.

Producing and consuming use ``confluent-kafka`` (librdkafka, shipped in its
wheel), part of the project's ``test`` extra.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

import pytest

from smt.record import Record

if TYPE_CHECKING:  # pragma: no cover
    from smt.local.kafka import BrokerSecurity, BrokerStatus, LocalKafka

__all__ = ["KafkaTestBroker", "kafka_broker", "local_broker"]

EXTERNAL_BROKER_ENV = "SMT_TEST_KAFKA_BOOTSTRAP_SERVERS"

_sequence = itertools.count(1)

# How long consume() waits for a committed transaction's markers before it reads what is committed.
_MARKER_GRACE_S = 10.0


def _client():
    try:
        import confluent_kafka
        import confluent_kafka.admin
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the kafka_broker fixture needs confluent-kafka: run `pip install -e .[test]`") from exc
    return confluent_kafka


class KafkaTestBroker:
    """A Kafka cluster seen from a test: topics, producing, consuming.

    ``client_settings`` are librdkafka settings (``security.protocol``,
    ``sasl.username``, ``ssl.ca.location``, ...) every client it makes gets.
    ``local`` is the broker process, when this session started it (it can
    then be restarted).
    """

    def __init__(
        self, bootstrap_servers: str, client_settings: Mapping[str, str] | None = None,
        local: "LocalKafka | None" = None,
    ) -> None:  # fmt: skip
        self.bootstrap_servers = bootstrap_servers
        self.client_settings = dict(client_settings or {})
        self._local = local

    def restart(self, timeout: float = 120.0) -> None:
        """Stop the broker and start it again on the same port, with its data.

        Returns once it serves again.  Only a broker this session started
        (not ``SMT_TEST_KAFKA_BOOTSTRAP_SERVERS``) can restart: raises
        ``RuntimeError`` otherwise, :class:`smt.local.kafka.BrokerError` when it
        does not come back within ``timeout`` seconds.
        """
        from smt.local.kafka import BrokerError

        if self._local is None:
            raise RuntimeError(f"the broker at {self.bootstrap_servers} was not started by this test session")
        self._local.stop()
        self._local.port = int(self.bootstrap_servers.rsplit(":", 1)[1])
        deadline = time.monotonic() + timeout
        while True:
            try:
                servers = self._local.start(timeout).bootstrap_servers
                break
            except BrokerError as exc:  # the stopped broker's socket may hold the port a moment
                if "is in use" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        assert servers == self.bootstrap_servers, f"restarted on {servers}, not {self.bootstrap_servers}"

    @classmethod
    def connected_to(
        cls, status: "BrokerStatus", protocol: str | None = None,
        username: str | None = None, password: str | None = None,
    ) -> "KafkaTestBroker":  # fmt: skip
        """A client of the local broker's ``protocol`` listener (default: its first), as ``username``."""
        security = status.client_security(protocol, username, password)
        servers = status.listeners.get(security.protocol, status.bootstrap_servers)
        return cls(servers, security.librdkafka())

    def _config(self, **extra: Any) -> dict[str, Any]:
        return {"bootstrap.servers": self.bootstrap_servers, **self.client_settings, **extra}

    def _admin(self):
        return _client().admin.AdminClient(self._config())

    def unique_topic(self, stem: str = "test") -> str:
        """A topic name no other test uses (the topic is not created)."""
        return f"{stem}-{next(_sequence)}-{uuid.uuid4().hex[:8]}"

    def create_topic(self, name: str | None = None, partitions: int = 1) -> str:
        """Create ``name`` (or a unique name) and return it once it is usable."""
        kafka = _client()
        name = name or self.unique_topic()
        admin = self._admin()
        futures = admin.create_topics([kafka.admin.NewTopic(name, partitions, 1)], operation_timeout=30)
        futures[name].result(timeout=30)
        self._wait_for_leaders(name, partitions)
        return name

    def topics(self) -> set[str]:
        return set(self._admin().list_topics(timeout=10).topics)

    def produce(self, topic: str, records: Iterable[Record | Mapping[str, Any]]) -> None:
        """Write ``records`` to ``topic`` in order and wait until every one is acknowledged.

        Each record is a :class:`Record` or a mapping with ``key``, ``value``,
        ``headers`` (pairs), ``partition`` and ``timestamp`` (ms), all optional;
        ``str`` keys, values and header values are encoded as UTF-8.
        """
        kafka = _client()
        # Ordered, and no wait for an idempotent producer id.
        producer = kafka.Producer(self._config(**{"enable.idempotence": False,
                                                  "max.in.flight.requests.per.connection": 1}))  # fmt: skip
        failures: list[str] = []

        def on_delivery(error, message) -> None:
            if error is not None:
                failures.append(f"{message.topic()}: {error}")

        for record in records:
            fields = _record_fields(record)
            extra = {"partition": fields["partition"]} if fields["partition"] is not None else {}
            if fields["timestamp"] is not None:
                extra["timestamp"] = fields["timestamp"]
            producer.produce(topic, key=_bytes(fields["key"]), value=_bytes(fields["value"]),
                             headers=[(n, _bytes(v)) for n, v in fields["headers"]] or None,
                             on_delivery=on_delivery, **extra)  # fmt: skip
            producer.poll(0)
        remaining = producer.flush(30)
        if remaining or failures:
            raise AssertionError(f"producing to {topic} failed: {failures or f'{remaining} unacknowledged'}")

    def consume(self, topic: str, n: int | None = None, timeout: float = 30.0) -> list[Record]:
        """Every record in ``topic`` up to its end, once it holds at least ``n``.

        Records come back ordered by partition, then offset, with key, value
        and header values as bytes (``None`` when absent).  Only committed
        records are read; a transaction committed just before is waited for
        (its markers), one still open is not.  Raises ``AssertionError`` if
        ``n`` records are not there within ``timeout``.
        """
        kafka = _client()
        consumer = kafka.Consumer(self._config(**{"group.id": f"smt-test-{uuid.uuid4().hex}",
                                                  "enable.auto.commit": False}))  # fmt: skip
        try:
            ends = self._wait_for_records(consumer, topic, n or 0, timeout)
            ends = self._wait_for_transaction_markers(consumer, topic, ends, min(timeout, _MARKER_GRACE_S))
            return self._read_to_ends(consumer, topic, ends, timeout)
        finally:
            consumer.close()

    # --- helpers ---------------------------------------------------------------

    def _wait_for_leaders(self, topic: str, partitions: int, timeout: float = 30.0) -> None:
        admin = self._admin()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            described = admin.list_topics(topic, timeout=10).topics.get(topic)
            if described is not None and described.error is None and len(described.partitions) == partitions:
                if all(p.leader >= 0 for p in described.partitions.values()):
                    return
            time.sleep(0.1)
        raise AssertionError(f"topic {topic} has no leaders after {timeout} s")

    def _wait_for_records(self, consumer, topic: str, n: int, timeout: float) -> dict[int, tuple[int, int]]:
        deadline = time.monotonic() + timeout
        while True:
            described = consumer.list_topics(topic, timeout=10).topics.get(topic)
            if described is None or described.error is not None:
                raise AssertionError(f"cannot consume from {topic}: {described and described.error}")
            ends = _watermarks(consumer, topic, described.partitions)
            available = sum(high - low for low, high in ends.values())
            if available >= n:
                return ends
            if time.monotonic() > deadline:
                raise AssertionError(f"{topic} holds {available} records, expected at least {n}, after {timeout} s")
            time.sleep(0.2)

    def _wait_for_transaction_markers(
        self, consumer, topic: str, ends: dict[int, tuple[int, int]], grace: float
    ) -> dict[int, tuple[int, int]]:
        """The committed ends once no transaction's markers are on their way, or after ``grace`` seconds.

        A commit returns before the broker has written its markers, and until then a read_committed
        consumer's end stops short of the transaction's records.  A transaction still open after
        ``grace`` seconds is one a test left open: its records are not read.
        """
        kafka = _client()
        written = kafka.Consumer(self._config(**{"group.id": f"smt-test-{uuid.uuid4().hex}",
                                                 "isolation.level": "read_uncommitted"}))  # fmt: skip
        deadline = time.monotonic() + grace
        try:
            while True:
                highs = _watermarks(written, topic, ends)
                if all(highs[p][1] <= ends[p][1] for p in ends) or time.monotonic() > deadline:
                    return ends
                time.sleep(0.1)
                ends = _watermarks(consumer, topic, ends)
        finally:
            written.close()

    def _read_to_ends(self, consumer, topic: str, ends: dict[int, tuple[int, int]], timeout: float) -> list[Record]:
        kafka = _client()
        pending = {p: high for p, (low, high) in ends.items() if high > low}
        consumer.assign([kafka.TopicPartition(topic, p, ends[p][0]) for p in pending])
        records: list[Record] = []
        deadline = time.monotonic() + timeout
        while pending:
            if time.monotonic() > deadline:
                raise AssertionError(f"reading {topic} timed out with partitions {sorted(pending)} unread")
            message = consumer.poll(0.5)
            if message is None:
                # A transaction's commit (or abort) marker takes the last offset and is never delivered.
                positions = consumer.position([kafka.TopicPartition(topic, p) for p in pending])
                for position in positions:
                    if position.offset >= pending.get(position.partition, position.offset + 1):
                        del pending[position.partition]
                continue
            if message.error() is not None:
                raise AssertionError(f"reading {topic} failed: {message.error()}")
            partition, offset = message.partition(), message.offset()
            if partition in pending and offset < pending[partition]:
                records.append(_to_record(message))
                if offset + 1 >= pending[partition]:
                    del pending[partition]
        return sorted(records, key=lambda r: (r.partition, r.offset))


def _watermarks(consumer, topic: str, partitions: Iterable[int]) -> dict[int, tuple[int, int]]:
    """Each partition's (low, high) offsets as ``consumer`` sees them (a read_committed one: up to the
    first open transaction)."""
    kafka = _client()
    return {p: consumer.get_watermark_offsets(kafka.TopicPartition(topic, p), timeout=10) for p in partitions}


def _record_fields(record: Record | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(record, Record):
        return {"key": record.key, "value": record.value, "headers": record.headers,
                "partition": record.partition, "timestamp": record.timestamp}  # fmt: skip
    unknown = set(record) - {"key", "value", "headers", "partition", "timestamp"}
    if unknown:
        raise ValueError(f"unknown record fields {sorted(unknown)}")
    return {"key": record.get("key"), "value": record.get("value"), "headers": tuple(record.get("headers") or ()),
            "partition": record.get("partition"), "timestamp": record.get("timestamp")}  # fmt: skip


def _bytes(value: Any) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"expected bytes or str, got {type(value).__name__}")


def _to_record(message) -> Record:
    timestamp_type, timestamp = message.timestamp()
    return Record(
        topic=message.topic(),
        partition=message.partition(),
        offset=message.offset(),
        # librdkafka numbers timestamp types 0 = none, 1 = create time, 2 = log append time.
        timestamp=timestamp,
        timestamp_type=timestamp_type - 1,
        key=message.key(),
        value=message.value(),
        headers=tuple(message.headers() or ()),
    )


@contextlib.contextmanager
def local_broker(state_dir: Path | str, security: "BrokerSecurity | None" = None) -> Iterator["BrokerStatus"]:
    """A fresh local broker in ``state_dir`` (secured as ``security`` says), stopped on exit."""
    with _started_broker(state_dir, security) as (_, status):
        yield status


@contextlib.contextmanager
def _started_broker(
    state_dir: Path | str, security: "BrokerSecurity | None" = None
) -> Iterator[tuple["LocalKafka", "BrokerStatus"]]:
    from smt.local.kafka import LocalKafka

    broker = LocalKafka(state_dir=state_dir, security=security, port=0)  # 9092 stays for the user
    try:
        yield broker, broker.start(fresh=True)
    finally:
        broker.stop()


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaTestBroker]:
    """A running Kafka broker for the whole test session (see the module docs)."""
    external = os.environ.get(EXTERNAL_BROKER_ENV)
    if external:
        yield KafkaTestBroker(external)
        return
    with _started_broker(tmp_path_factory.mktemp("kafka-broker")) as (broker, status):
        yield KafkaTestBroker(status.bootstrap_servers, local=broker)
