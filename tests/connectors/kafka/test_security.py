"""Kafka security settings pass through: a pipeline against a broker that requires SASL/PLAIN or TLS.

One broker for the module, with a SASL_PLAINTEXT listener (users alice and
bob) and an SSL listener (a throwaway CA); source, sink and dead-letter queue
each get their own ``kafka.*`` security settings.
"""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaException

from connectors.kafka import KafkaAuthenticationError
from smt.local.kafka import BrokerSecurity
from smt.pipeline import PipelineSpec, run_pipeline
from smt.testing.kafka import KafkaTestBroker, local_broker

pytestmark = [pytest.mark.kafka, pytest.mark.spark, pytest.mark.slow]

USERS = {"alice": "alice-secret", "bob": "bob-secret"}

RECORDS = [
    {"key": "k1", "value": '{"n": 1}', "headers": [("trace", "t-1")]},
    {"key": None, "value": "plain text", "headers": [("trace", "t-2"), ("trace", "again")]},
    {"key": "k3", "value": None, "headers": []},
    {"key": "k4", "value": '{"n": 4}', "headers": [("empty", "")]},
]
#: RECORDS as they read back: bytes, and the header the pipeline stamps.
EXPECTED = [
    (b"k1", b'{"n": 1}', (("trace", b"t-1"), ("via", b"secured"))),
    (None, b"plain text", (("trace", b"t-2"), ("trace", b"again"), ("via", b"secured"))),
    (b"k3", None, (("via", b"secured"),)),
    (b"k4", b'{"n": 4}', (("empty", b""), ("via", b"secured"))),
]


@pytest.fixture(scope="module")
def secured_broker(tmp_path_factory):
    security = BrokerSecurity(("SASL_PLAINTEXT", "SSL"), USERS)
    with local_broker(tmp_path_factory.mktemp("secured-kafka"), security) as status:
        yield status


@pytest.fixture(scope="module")
def alice(secured_broker) -> KafkaTestBroker:
    """Creates topics, produces and consumes as alice over SASL_PLAINTEXT."""
    return KafkaTestBroker.connected_to(secured_broker, "SASL_PLAINTEXT", "alice", USERS["alice"])


def java_settings(status, role: str, protocol: str, user: str | None = None, password: str | None = None):
    """``<role>.kafka.*`` keys for ``protocol`` as ``user``: bootstrap servers and security settings."""
    settings = {"bootstrap.servers": status.listeners[protocol],
                **status.client_security(protocol, user, password).java()}  # fmt: skip
    return {f"{role}.kafka.{key}": value for key, value in settings.items()}


def topics(broker: KafkaTestBroker, stem: str, *names: str) -> list[str]:
    """Create ``<unique stem>-<name>`` for each name; the pipeline reads ``-in`` and writes ``-out``."""
    stem = broker.unique_topic(stem)
    return [broker.create_topic(f"{stem}-{name}") for name in names]


def pipeline(source_topic: str, **settings: str) -> PipelineSpec:
    """Reads ``source_topic`` (``...-in``), stamps a header and routes every record to ``...-out``."""
    return PipelineSpec.from_properties({
        "name": "secured",
        "source": "kafka",
        "source.topics": source_topic,
        "sink": "kafka",
        "header.converter": "string",
        "transforms": "via,route",
        "transforms.via.type": "InsertHeader",
        "transforms.via.header": "via",
        "transforms.via.value.literal": "secured",
        "transforms.route.type": "RegexRouter",
        "transforms.route.regex": "(.*)-in",
        "transforms.route.replacement": "$1-out",
        **settings,
    })  # fmt: skip


def read_back(broker: KafkaTestBroker, topic: str, n: int) -> list[tuple]:
    return [(r.key, r.value, r.headers) for r in broker.consume(topic, n)]


def test_the_sasl_broker_refuses_clients_without_credentials(secured_broker, alice):
    """The broker really requires SASL: a wrong password gets no metadata (so passing tests mean something)."""
    intruder = KafkaTestBroker.connected_to(secured_broker, "SASL_PLAINTEXT", "alice", "wrong")
    with pytest.raises(KafkaException, match="Failed to get metadata"):
        intruder.topics()
    assert alice.create_topic(alice.unique_topic("reachable")) in alice.topics()


def test_sasl_plain_source_and_sink_round_trip_every_record(kafka_spark, secured_broker, alice):
    source, sink = topics(alice, "sasl", "in", "out")
    alice.produce(source, RECORDS)
    spec = pipeline(source,
                    **java_settings(secured_broker, "source", "SASL_PLAINTEXT", "alice", USERS["alice"]),
                    **java_settings(secured_broker, "sink", "SASL_PLAINTEXT", "bob", USERS["bob"]))  # fmt: skip
    assert spec.source.kafka_params["sasl.mechanism"] == "PLAIN"

    result = run_pipeline(spec, spark=kafka_spark)

    assert (result.counts.read, result.counts.written) == (4, 4)
    assert read_back(alice, sink, 4) == EXPECTED


def test_tls_source_and_sink_round_trip_with_dead_letters_over_sasl(kafka_spark, secured_broker, alice):
    source, sink, dlq = topics(alice, "tls", "in", "out", "dlq")
    alice.produce(source, RECORDS)
    spec = pipeline(source,
                    **java_settings(secured_broker, "source", "SSL"),
                    **java_settings(secured_broker, "sink", "SSL"),
                    **java_settings(secured_broker, "errors.deadletterqueue", "SASL_PLAINTEXT", "bob", USERS["bob"]),
                    **{"value.converter": "json", "value.converter.schemas.enable": "false",
                       "errors.tolerance": "all", "errors.deadletterqueue.topic.name": dlq})  # fmt: skip

    result = run_pipeline(spec, spark=kafka_spark)

    # "plain text" is not JSON: it goes to the dead-letter topic, over SASL, as bob.
    assert (result.counts.read, result.counts.written, result.counts.dead_lettered) == (4, 3, 1)
    assert read_back(alice, sink, 3) == [
        (b"k1", b'{"n":1}', EXPECTED[0][2]),
        (b"k3", None, EXPECTED[2][2]),
        (b"k4", b'{"n":4}', EXPECTED[3][2]),
    ]
    assert read_back(alice, dlq, 1) == [(None, b"plain text", (("trace", b"t-2"), ("trace", b"again")))]


def test_a_stream_reads_over_tls_and_writes_over_sasl(kafka_spark, secured_broker, alice, tmp_path):
    source, sink = topics(alice, "stream", "in", "out")
    alice.produce(source, RECORDS)
    spec = pipeline(source,
                    **java_settings(secured_broker, "source", "SSL"),
                    **java_settings(secured_broker, "sink", "SASL_PLAINTEXT", "alice", USERS["alice"]),
                    **{"mode": "streaming", "streaming.trigger": "availableNow",
                       "checkpoint.location": str(tmp_path / "checkpoint")})  # fmt: skip

    run_pipeline(spec, spark=kafka_spark)

    assert read_back(alice, sink, 4) == EXPECTED


def test_a_wrong_source_password_fails_before_reading(kafka_spark, secured_broker, alice):
    source, sink = topics(alice, "bad", "in", "out")
    alice.produce(source, RECORDS[:1])
    servers = secured_broker.listeners["SASL_PLAINTEXT"]
    spec = pipeline(source,
                    **java_settings(secured_broker, "source", "SASL_PLAINTEXT", "alice", "not-alices-password"),
                    **java_settings(secured_broker, "sink", "SASL_PLAINTEXT", "bob", USERS["bob"]))  # fmt: skip

    with pytest.raises(
        KafkaAuthenticationError,
        match=rf"^source\.kafka\.bootstrap\.servers={servers}: authentication failed; .*"
        r"SaslAuthenticationException: Authentication failed: Invalid username or password",
    ):
        run_pipeline(spec, spark=kafka_spark)
    assert alice.consume(sink) == []


def test_a_wrong_sink_password_fails_before_writing(kafka_spark, secured_broker, alice):
    source, sink = topics(alice, "bad", "in", "out")
    alice.produce(source, RECORDS)
    servers = secured_broker.listeners["SASL_PLAINTEXT"]
    spec = pipeline(source,
                    **java_settings(secured_broker, "source", "SASL_PLAINTEXT", "alice", USERS["alice"]),
                    **java_settings(secured_broker, "sink", "SASL_PLAINTEXT", "bob", "alice-secret"))  # fmt: skip

    with pytest.raises(KafkaAuthenticationError,
                       match=rf"^sink\.kafka\.bootstrap\.servers={servers}: authentication failed; "):  # fmt: skip
        run_pipeline(spec, spark=kafka_spark)
    assert alice.consume(sink) == []


def test_a_broker_certificate_not_trusted_fails_before_reading(kafka_spark, secured_broker, alice):
    source, sink = topics(alice, "untrusted", "in", "out")
    servers = secured_broker.listeners["SSL"]
    # TLS without the throwaway CA's truststore: Java's default trust store does not know it.
    spec = pipeline(source,
                    **{"source.kafka.bootstrap.servers": servers, "source.kafka.security.protocol": "SSL"},
                    **java_settings(secured_broker, "sink", "SSL"))  # fmt: skip

    with pytest.raises(KafkaAuthenticationError,
                       match=rf"^source\.kafka\.bootstrap\.servers={servers}: authentication failed; .*"
                             r"SslAuthenticationException"):  # fmt: skip
        run_pipeline(spec, spark=kafka_spark)
    assert alice.consume(sink) == []


def test_a_wrong_dead_letter_queue_password_fails_before_writing(kafka_spark, secured_broker, alice):
    source, sink, dlq = topics(alice, "bad-dlq", "in", "out", "dlq")
    alice.produce(source, RECORDS)
    servers = secured_broker.listeners["SASL_PLAINTEXT"]
    spec = pipeline(source,
                    **java_settings(secured_broker, "source", "SSL"),
                    **java_settings(secured_broker, "sink", "SSL"),
                    **java_settings(secured_broker, "errors.deadletterqueue", "SASL_PLAINTEXT", "bob", "wrong"),
                    **{"errors.tolerance": "all", "errors.deadletterqueue.topic.name": dlq})  # fmt: skip

    where = r"errors\.deadletterqueue\.kafka\.bootstrap\.servers"
    with pytest.raises(KafkaAuthenticationError, match=rf"^{where}={servers}: authentication failed; "):
        run_pipeline(spec, spark=kafka_spark)
    assert (alice.consume(sink), alice.consume(dlq)) == ([], [])
