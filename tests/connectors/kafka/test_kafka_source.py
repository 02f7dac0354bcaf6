"""The Kafka source: configuration, batch reads through Spark, and its errors."""

from __future__ import annotations

import json
import re

import pytest

from connectors.kafka import KafkaSource, KafkaUnavailableError, MissingTopicError
from smt.errors import ConfigError, SmtError
from smt.plugins import default_plugins
from smt.record import KAFKA_ROW_FIELDS, Record
from tests.connectors.kafka._helpers import closed_port, configured, row_tuple


def source(**configs) -> KafkaSource:
    configs.setdefault("kafka_bootstrap_servers", "127.0.0.1:9092")
    return configured(KafkaSource, "source", **configs)


# --- configuration -----------------------------------------------------------


def test_registered_by_name():
    assert default_plugins().get("source", "kafka") is KafkaSource


@pytest.mark.parametrize(
    ("configs", "message"),
    [
        ({}, r"^source\.topics: set exactly one of source\.topics and source\.topic\.pattern$"),
        ({"topics": "a", "topic_pattern": "a.*"}, r"^source\.topics: set exactly one of"),
        ({"topics": "a,,b"}, r"^source\.topics: must not contain an empty topic name$"),
        ({"topic_pattern": "a("}, r"^source\.topic\.pattern: is not a valid regular expression"),
        ({"topics": "a", "starting_offsets": "oldest"},
         r"^source\.starting\.offsets: must be earliest or latest or group, or a JSON object of topic -> partition"),
        ({"topics": "a", "starting_offsets": '{"a": [1]}'},
         r"^source\.starting\.offsets: the JSON form must map each topic to an object"),
        ({"topics": "a", "ending_offsets": "earliest"}, r"^source\.ending\.offsets: must be latest, or a JSON"),
        ({"topics": "a", "check_timeout_ms": "0"}, r"^source\.check\.timeout\.ms: must be at least 1; got 0$"),
    ],
)  # fmt: skip
def test_bad_configuration_names_the_key(configs, message):
    with pytest.raises(ConfigError, match=message):
        source(**configs)


def test_bootstrap_servers_are_required():
    with pytest.raises(ConfigError, match=r"^source\.kafka\.bootstrap\.servers: is required and has no default$"):
        configured(KafkaSource, "source", topics="a")


def test_kafka_keys_pass_through_to_spark():
    plugin = source(topics="a, b", kafka_security_protocol="PLAINTEXT", kafka_client_id="smt")
    options = plugin._spark_options(streaming=False)
    assert options == {
        "kafka.bootstrap.servers": "127.0.0.1:9092",
        "kafka.security.protocol": "PLAINTEXT",
        "kafka.client.id": "smt",
        "subscribe": "a,b",
        "startingOffsets": "earliest",
        "endingOffsets": "latest",
        "includeHeaders": "true",
        "failOnDataLoss": "true",
    }
    streaming = source(topic_pattern="in-.*", max_offsets_per_trigger="100")._spark_options(streaming=True)
    assert streaming["subscribePattern"] == "in-.*"
    assert streaming["maxOffsetsPerTrigger"] == "100"
    assert "endingOffsets" not in streaming


def test_spark_conf_hands_spark_the_connector_jars():
    jars = source(topics="a").spark_conf()["spark.jars"].split(",")
    assert any(re.search(r"spark-sql-kafka-0-10_2\.13-4\.\d+\.\d+\.jar$", jar) for jar in jars)
    assert any("kafka-clients-" in jar for jar in jars)


# --- reading through Spark ---------------------------------------------------------


EVENTS = [
    Record(partition=0, key=b"k0", value=b'{"n":0}', headers=(("h", b"a"), ("h", b"b")), timestamp=1_700_000_000_000),
    Record(partition=1, key=None, value=b'{"n":1}', timestamp=1_700_000_000_001),
    Record(partition=0, key=b"k2", value=None, headers=(("empty", b""),), timestamp=1_700_000_000_002),
    Record(partition=1, key=b"k3", value=b'{"n":3}', headers=(("nil", None),), timestamp=1_700_000_000_003),
]  # fmt: skip


@pytest.fixture(scope="module")
def events_topic(kafka_broker):
    topic = kafka_broker.create_topic(kafka_broker.unique_topic("events"), partitions=2)
    kafka_broker.produce(topic, EVENTS)
    return topic


def read(kafka_spark, kafka_broker, **configs):
    plugin = source(kafka_bootstrap_servers=kafka_broker.bootstrap_servers, **configs)
    df = plugin.read(kafka_spark)
    assert tuple(df.columns) == KAFKA_ROW_FIELDS
    return df


@pytest.mark.kafka
@pytest.mark.spark
def test_batch_read_gives_keys_values_headers_offsets_partitions(kafka_spark, kafka_broker, events_topic):
    df = read(kafka_spark, kafka_broker, topics=events_topic)
    rows = sorted(df.collect(), key=lambda r: (r["partition"], r["offset"]))
    assert [row_tuple(r) for r in rows] == [
        (b"k0", b'{"n":0}', events_topic, 0, 0, (("h", b"a"), ("h", b"b"))),
        (b"k2", None, events_topic, 0, 1, (("empty", b""),)),
        (None, b'{"n":1}', events_topic, 1, 0, None),  # Spark: no headers = null
        (b"k3", b'{"n":3}', events_topic, 1, 1, (("nil", None),)),
    ]
    millis = sorted(r[0] for r in df.selectExpr("unix_millis(timestamp)").collect())
    assert millis == [1_700_000_000_000, 1_700_000_000_001, 1_700_000_000_002, 1_700_000_000_003]
    assert {r["timestampType"] for r in rows} == {0}


@pytest.mark.kafka
@pytest.mark.spark
def test_offsets_bound_a_batch_read(kafka_spark, kafka_broker, events_topic):
    starting = json.dumps({events_topic: {"0": 1, "1": -2}})
    ending = json.dumps({events_topic: {"0": -1, "1": 1}})
    df = read(kafka_spark, kafka_broker, topics=events_topic, starting_offsets=starting, ending_offsets=ending)
    assert sorted((r["partition"], r["offset"]) for r in df.collect()) == [(0, 1), (1, 0)]


@pytest.mark.kafka
@pytest.mark.spark
def test_headers_can_be_left_out(kafka_spark, kafka_broker, events_topic):
    df = read(kafka_spark, kafka_broker, topics=events_topic, include_headers="false")
    assert [r["headers"] for r in df.collect()] == [None] * len(EVENTS)


@pytest.mark.kafka
@pytest.mark.spark
def test_a_pattern_reads_every_matching_topic(kafka_spark, kafka_broker):
    stem = kafka_broker.unique_topic("pattern")
    first = kafka_broker.create_topic(f"{stem}-a")
    second = kafka_broker.create_topic(f"{stem}-b")
    other = kafka_broker.create_topic(f"other-{stem}")
    for topic in (first, second, other):
        kafka_broker.produce(topic, [{"value": topic}])
    df = read(kafka_spark, kafka_broker, topic_pattern=f"{stem}-.*")
    assert sorted((r["topic"], bytes(r["value"]).decode()) for r in df.collect()) == [(first, first), (second, second)]


# --- errors, before Spark reads anything -------------------------------------------------


@pytest.mark.kafka
@pytest.mark.spark
def test_a_missing_topic_is_named_with_the_cluster(kafka_spark, kafka_broker, events_topic):
    servers = kafka_broker.bootstrap_servers
    with pytest.raises(
        MissingTopicError,
        match=rf"^source\.topics: topic 'no-such-topic' does not exist on the Kafka cluster at {servers} ",
    ):
        read(kafka_spark, kafka_broker, topics=f"{events_topic},no-such-topic")


@pytest.mark.kafka
@pytest.mark.spark
def test_a_pattern_that_matches_nothing_fails_a_batch_read(kafka_spark, kafka_broker):
    with pytest.raises(
        MissingTopicError, match=r"^source\.topic\.pattern: no topic on the Kafka cluster at .* matches 'nothing-.*'$"
    ):
        read(kafka_spark, kafka_broker, topic_pattern="nothing-.*")


@pytest.mark.spark
def test_an_unreachable_broker_is_named(kafka_spark):
    servers = f"127.0.0.1:{closed_port()}"
    plugin = source(kafka_bootstrap_servers=servers, topics="events", check_timeout_ms="2000")
    with pytest.raises(
        KafkaUnavailableError,
        match=rf"^source\.kafka\.bootstrap\.servers={servers}: cannot reach the Kafka cluster within 2000 ms",
    ):
        plugin.read(kafka_spark)


@pytest.mark.spark
def test_an_unresolvable_broker_is_named(kafka_spark):
    plugin = source(kafka_bootstrap_servers="no-such-host.invalid:9092", topics="events")
    with pytest.raises(
        KafkaUnavailableError,
        match=r"^source\.kafka\.bootstrap\.servers=no-such-host\.invalid:9092: cannot create a Kafka client: .*bootstrap",
    ):
        plugin.read(kafka_spark)


@pytest.mark.kafka
@pytest.mark.spark
def test_kafka_settings_spark_refuses_are_reported(kafka_spark, kafka_broker, events_topic):
    with pytest.raises(
        SmtError,
        match=r"^source: Spark's Kafka source rejected the configuration: "
        r"IllegalArgumentException: Kafka option 'key\.deserializer' is not supported",
    ):
        read(kafka_spark, kafka_broker, topics=events_topic,
             kafka_key_deserializer="org.apache.kafka.common.serialization.StringDeserializer")  # fmt: skip
