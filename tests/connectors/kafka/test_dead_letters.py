"""The Kafka connector's dead-letter writer checks records as its topic will receive them (no Spark, no broker)."""

from __future__ import annotations

from connectors.kafka.dead_letters import TopicDeadLetters
from smt.testing.records import make_record
from tests.connectors.kafka.test_kafka_record_checks import arrow, sink


def test_dead_letters_are_checked_on_the_dead_letter_topic():
    dead_letters = TopicDeadLetters(sink(kafka_max_request_size="1000"), "dlq")
    records = arrow(
        make_record(topic="not a legal topic", value=b"x"),  # its own topic does not matter
        make_record(topic=None, value=b"v" * 2000),  # too large for any topic
    )
    assert [(row, type(exc).__name__) for row, exc in dead_letters.record_errors(records)] == [
        (1, "RecordTooLargeError")
    ]


def test_the_sink_alone_would_refuse_both():
    records = arrow(make_record(topic="not a legal topic", value=b"x"), make_record(topic=None, value=b"v" * 2000))
    assert [row for row, _ in sink(kafka_max_request_size="1000").record_errors(records)] == [0, 1]
