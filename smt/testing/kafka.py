"""Pytest fixtures for a real Kafka broker.

``kafka_broker`` (session-scoped) starts the single-node broker of
:mod:`smt.local.kafka` in a temporary state folder, hands tests a
:class:`KafkaTestBroker` to create topics, produce and consume, and stops the
broker when the session ends.  Set ``SMT_TEST_KAFKA_BOOTSTRAP_SERVERS`` to
use a broker that is already running instead.

Producing and consuming use ``confluent-kafka`` (librdkafka, shipped in its
wheel), part of the project's ``test`` extra.
"""

from __future__ import annotations

import itertools
import os
import time
import uuid
from typing import Any, Iterable, Iterator, Mapping

import pytest

from smt.record import Record

__all__ = ["KafkaTestBroker", "kafka_broker"]

EXTERNAL_BROKER_ENV = "SMT_TEST_KAFKA_BOOTSTRAP_SERVERS"

_sequence = itertools.count(1)


def _client():
    try:
        import confluent_kafka
        import confluent_kafka.admin
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the kafka_broker fixture needs confluent-kafka: run `pip install -e .[test]`"
        ) from exc
    return confluent_kafka


class KafkaTestBroker:
    """A Kafka cluster seen from a test: topics, producing, consuming."""

    def __init__(self, bootstrap_servers: str) -> None:
        self.bootstrap_servers = bootstrap_servers

    def unique_topic(self, stem: str = "test") -> str:
        """A topic name no other test uses (the topic is not created)."""
        return f"{stem}-{next(_sequence)}-{uuid.uuid4().hex[:8]}"

    def create_topic(self, name: str | None = None, partitions: int = 1) -> str:
        """Create ``name`` (or a unique name) and return it once it is usable."""
        kafka = _client()
        name = name or self.unique_topic()
        admin = kafka.admin.AdminClient({"bootstrap.servers": self.bootstrap_servers})
        futures = admin.create_topics([kafka.admin.NewTopic(name, partitions, 1)], operation_timeout=30)
        futures[name].result(timeout=30)
        self._wait_for_leaders(name, partitions)
        return name

    def topics(self) -> set[str]:
        kafka = _client()
        admin = kafka.admin.AdminClient({"bootstrap.servers": self.bootstrap_servers})
        return set(admin.list_topics(timeout=10).topics)

    def produce(self, topic: str, records: Iterable[Record | Mapping[str, Any]]) -> None:
        """Write ``records`` to ``topic`` in order and wait until every one is acknowledged.

        Each record is a :class:`Record` or a mapping with ``key``, ``value``,
        ``headers`` (pairs), ``partition`` and ``timestamp`` (ms), all optional;
        ``str`` keys, values and header values are encoded as UTF-8.
        """
        kafka = _client()
        producer = kafka.Producer({"bootstrap.servers": self.bootstrap_servers, "enable.idempotence": False,
                                   "max.in.flight.requests.per.connection": 1})  # ordered, no coordinator wait
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
        and header values as bytes (``None`` when absent).  Raises
        ``AssertionError`` if ``n`` records are not there within ``timeout``.
        """
        kafka = _client()
        consumer = kafka.Consumer({
            "bootstrap.servers": self.bootstrap_servers,
            "group.id": f"smt-test-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
        })  # fmt: skip
        try:
            ends = self._wait_for_records(consumer, topic, n or 0, timeout)
            return self._read_to_ends(consumer, topic, ends, timeout)
        finally:
            consumer.close()

    # --- helpers ---------------------------------------------------------------

    def _wait_for_leaders(self, topic: str, partitions: int, timeout: float = 30.0) -> None:
        kafka = _client()
        admin = kafka.admin.AdminClient({"bootstrap.servers": self.bootstrap_servers})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            described = admin.list_topics(topic, timeout=10).topics.get(topic)
            if described is not None and described.error is None and len(described.partitions) == partitions:
                if all(p.leader >= 0 for p in described.partitions.values()):
                    return
            time.sleep(0.1)
        raise AssertionError(f"topic {topic} has no leaders after {timeout} s")

    def _wait_for_records(self, consumer, topic: str, n: int, timeout: float) -> dict[int, tuple[int, int]]:
        kafka = _client()
        deadline = time.monotonic() + timeout
        while True:
            described = consumer.list_topics(topic, timeout=10).topics.get(topic)
            if described is None or described.error is not None:
                raise AssertionError(f"cannot consume from {topic}: {described and described.error}")
            ends = {
                p: consumer.get_watermark_offsets(kafka.TopicPartition(topic, p), timeout=10)
                for p in described.partitions
            }
            available = sum(high - low for low, high in ends.values())
            if available >= n:
                return ends
            if time.monotonic() > deadline:
                raise AssertionError(f"{topic} holds {available} records, expected at least {n}, after {timeout} s")
            time.sleep(0.2)

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
                continue
            if message.error() is not None:
                raise AssertionError(f"reading {topic} failed: {message.error()}")
            partition, offset = message.partition(), message.offset()
            if partition in pending and offset < pending[partition]:
                records.append(_to_record(message))
                if offset + 1 >= pending[partition]:
                    del pending[partition]
        return sorted(records, key=lambda r: (r.partition, r.offset))


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


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaTestBroker]:
    """A running Kafka broker for the whole test session (see the module docs)."""
    external = os.environ.get(EXTERNAL_BROKER_ENV)
    if external:
        yield KafkaTestBroker(external)
        return
    from smt.local.kafka import LocalKafka

    broker = LocalKafka(state_dir=tmp_path_factory.mktemp("kafka-broker"))
    status = broker.start(fresh=True)
    try:
        yield KafkaTestBroker(status.bootstrap_servers)
    finally:
        broker.stop()
