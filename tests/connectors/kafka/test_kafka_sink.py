"""The Kafka sink: routing by record topic, headers, and failing before writing anything."""

from __future__ import annotations

import pytest

from connectors.kafka import KafkaSink, KafkaUnavailableError, KafkaWriteError, MissingTopicError
from smt.errors import ConfigError
from smt.plugins import default_plugins
from smt.record import KAFKA_ROW_SCHEMA_DDL
from tests.connectors.kafka._helpers import closed_port, configured


def sink(servers: str = "127.0.0.1:9092", **configs) -> KafkaSink:
    return configured(KafkaSink, "sink", kafka_bootstrap_servers=servers, **configs)


def rows_df(spark, rows):
    """A Kafka-layout DataFrame from (key, value, topic, headers[, partition]) tuples."""
    full = [
        (key, value, topic, partition, None, None, 0, list(headers) if headers is not None else None)
        for key, value, topic, headers, partition in (r if len(r) == 5 else (*r, 0) for r in rows)
    ]
    return spark.createDataFrame(full, KAFKA_ROW_SCHEMA_DDL)


def received(kafka_broker, topic, n=None):
    return [(r.key, r.value, r.headers) for r in kafka_broker.consume(topic, n)]


def test_registered_by_name():
    assert default_plugins().get("sink", "kafka") is KafkaSink


def test_bootstrap_servers_are_required():
    with pytest.raises(ConfigError, match=r"^sink\.kafka\.bootstrap\.servers: is required and has no default$"):
        configured(KafkaSink, "sink", topic="out")


@pytest.mark.kafka
@pytest.mark.spark
def test_records_go_to_their_own_topic_or_the_default(kafka_spark, kafka_broker):
    routed = kafka_broker.create_topic(kafka_broker.unique_topic("routed"))
    default = kafka_broker.create_topic(kafka_broker.unique_topic("default"))
    df = rows_df(kafka_spark, [
        (b"k1", b"to routed", routed, [("h", b"1"), ("h", b"2")]),
        (b"k2", b"no topic", None, [("origin", b"x")]),
        (None, b"empty topic", "", None),
        (b"k4", None, routed, []),
    ])  # fmt: skip
    sink(kafka_broker.bootstrap_servers, topic=default).write(df)
    # Spark writes its partitions in parallel: the order across rows is not defined.
    assert sorted(received(kafka_broker, routed, 2)) == [
        (b"k1", b"to routed", (("h", b"1"), ("h", b"2"))),
        (b"k4", None, ()),
    ]
    assert sorted(received(kafka_broker, default, 2), key=lambda r: r[1]) == [
        (None, b"empty topic", ()),
        (b"k2", b"no topic", (("origin", b"x"),)),
    ]


@pytest.mark.kafka
@pytest.mark.spark
def test_keep_partition_writes_to_the_records_partition(kafka_spark, kafka_broker):
    topic = kafka_broker.create_topic(kafka_broker.unique_topic("partitioned"), partitions=2)
    df = rows_df(kafka_spark, [(b"same-key", b"one", topic, None, 1), (b"same-key", b"zero", topic, None, 0)])
    sink(kafka_broker.bootstrap_servers, keep_partition="true").write(df)
    assert [(r.partition, r.value) for r in kafka_broker.consume(topic, 2)] == [(0, b"zero"), (1, b"one")]


@pytest.mark.kafka
@pytest.mark.spark
def test_a_missing_topic_fails_before_anything_is_written(kafka_spark, kafka_broker):
    existing = kafka_broker.create_topic(kafka_broker.unique_topic("existing"))
    df = rows_df(kafka_spark, [(b"k", b"v", existing, None), (b"k", b"v", "no-such-topic", None)])
    with pytest.raises(
        MissingTopicError,
        match=rf"^sink: topic 'no-such-topic' does not exist on the Kafka cluster at {kafka_broker.bootstrap_servers} ",
    ):
        sink(kafka_broker.bootstrap_servers).write(df)
    assert kafka_broker.consume(existing) == []


@pytest.mark.kafka
@pytest.mark.spark
def test_a_record_without_topic_needs_a_default(kafka_spark, kafka_broker):
    df = rows_df(kafka_spark, [(b"k", b"v", None, None)])
    with pytest.raises(
        MissingTopicError, match=r"^sink\.topic: some records have no topic and no default topic is set"
    ):
        sink(kafka_broker.bootstrap_servers).write(df)


@pytest.mark.kafka
@pytest.mark.spark
def test_without_the_check_kafka_errors_are_named(kafka_spark, kafka_broker):
    df = rows_df(kafka_spark, [(b"k", b"v", "never-created", None)])
    plugin = sink(kafka_broker.bootstrap_servers, check_topics="false", kafka_max_block_ms="1500")
    with pytest.raises(
        KafkaWriteError,
        match=rf"^writing to the Kafka cluster at {kafka_broker.bootstrap_servers} failed; records written before "
        r"the failure stay in Kafka: TimeoutException: Topic never-created not present in metadata after 1500 ms",
    ):
        plugin.write(df)


@pytest.mark.spark
def test_an_unreachable_broker_is_named(kafka_spark):
    servers = f"127.0.0.1:{closed_port()}"
    df = rows_df(kafka_spark, [(b"k", b"v", "out", None)])
    with pytest.raises(
        KafkaUnavailableError,
        match=rf"^sink\.kafka\.bootstrap\.servers={servers}: cannot reach the Kafka cluster within 1500 ms",
    ):
        sink(servers, check_timeout_ms="1500").write(df)


@pytest.mark.kafka
@pytest.mark.spark
def test_check_names_a_missing_default_topic_before_any_write(kafka_spark, kafka_broker):
    existing = kafka_broker.create_topic(kafka_broker.unique_topic("checked"))
    sink(kafka_broker.bootstrap_servers, topic=existing).check(kafka_spark)  # no error
    with pytest.raises(
        MissingTopicError,
        match=rf"^sink\.topic: topic 'dead-letters' does not exist on the Kafka cluster at {kafka_broker.bootstrap_servers} ",
    ):
        sink(kafka_broker.bootstrap_servers, topic="dead-letters").check(kafka_spark)


@pytest.mark.spark
def test_check_names_an_unreachable_broker(kafka_spark):
    servers = f"127.0.0.1:{closed_port()}"
    with pytest.raises(KafkaUnavailableError, match=rf"^sink\.kafka\.bootstrap\.servers={servers}: cannot reach"):
        sink(servers, topic="out", check_timeout_ms="1000").check(kafka_spark)
