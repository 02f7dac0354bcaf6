"""KafkaTestBroker.consume on a real broker: a transaction's records right after its commit, none of an open one."""

from __future__ import annotations

import threading
import uuid

import pytest

import smt.testing.kafka as kafka_fixture

pytestmark = pytest.mark.kafka


def transactional_producer(kafka_broker, topic, values):
    import confluent_kafka

    producer = confluent_kafka.Producer(
        {"bootstrap.servers": kafka_broker.bootstrap_servers, "transactional.id": f"consume-{uuid.uuid4().hex}"}
    )
    producer.init_transactions(30)
    producer.begin_transaction()
    for value in values:
        producer.produce(topic, value)
    producer.flush(30)
    return producer


def test_a_transaction_that_ends_while_consume_waits_is_read_whole(kafka_broker):
    """A commit returns before the broker writes its markers, so consume waits for a transaction on its way.

    Here the commit comes a second after consume starts, a longer lag than the markers' own.
    """
    topic = kafka_broker.create_topic()
    values = [f"v{n}".encode() for n in range(50)]
    producer = transactional_producer(kafka_broker, topic, values)
    committing = threading.Timer(1.0, producer.commit_transaction, args=(30,))
    committing.start()
    try:
        assert [r.value for r in kafka_broker.consume(topic)] == values
    finally:
        committing.join()


def test_an_open_transactions_records_are_not_read(kafka_broker, monkeypatch):
    monkeypatch.setattr(kafka_fixture, "_MARKER_GRACE_S", 1.0)
    topic = kafka_broker.create_topic()
    kafka_broker.produce(topic, [{"value": b"before"}])
    producer = transactional_producer(kafka_broker, topic, [b"open"])
    try:
        assert [r.value for r in kafka_broker.consume(topic)] == [b"before"]
    finally:
        producer.abort_transaction(30)
