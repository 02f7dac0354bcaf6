"""Secured listeners of the local broker: their configuration, client settings, and a real SASL_SSL broker."""

from __future__ import annotations

import re
import ssl
from pathlib import Path

import pytest

from smt import cli
from smt.local._kafka_security import BrokerSecurity, ClientSecurity, TlsFiles, listener_properties
from smt.local._probe import SaslAuthenticationFailed, fetch_metadata
from smt.local.kafka import LocalKafka

JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required"
TLS = TlsFiles(Path("/state/tls"), "store-pw")


def test_sasl_and_tls_listeners_are_configured_with_their_users_and_stores():
    security = BrokerSecurity(("SASL_PLAINTEXT", "SSL"), {"alice": "a-pw"})
    text = listener_properties(security, {"SASL_PLAINTEXT": 9001, "SSL": 9002}, 9000, "127.0.0.1", "b-pw", TLS)
    assert text.splitlines() == [
        "listeners=SASL_PLAINTEXT://127.0.0.1:9001,SSL://127.0.0.1:9002,CONTROLLER://127.0.0.1:9000",
        "advertised.listeners=SASL_PLAINTEXT://127.0.0.1:9001,SSL://127.0.0.1:9002",
        "controller.listener.names=CONTROLLER",
        "inter.broker.listener.name=SASL_PLAINTEXT",
        "listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SSL:SSL",
        "sasl.enabled.mechanisms=PLAIN",
        "sasl.mechanism.inter.broker.protocol=PLAIN",
        f'listener.name.sasl_plaintext.plain.sasl.jaas.config={JAAS} username="smt-local-broker" password="b-pw" '
        'user_smt-local-broker="b-pw" user_alice="a-pw";',
        "ssl.keystore.location=/state/tls/broker.p12",
        "ssl.keystore.type=PKCS12",
        "ssl.keystore.password=store-pw",
        "ssl.key.password=store-pw",
        "ssl.truststore.location=/state/tls/truststore.p12",
        "ssl.truststore.type=PKCS12",
        "ssl.truststore.password=store-pw",
    ]  # fmt: skip


def test_the_default_is_one_plaintext_listener():
    text = listener_properties(BrokerSecurity(), {"PLAINTEXT": 9001}, 9000, "127.0.0.1", "unused", None)
    assert "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT" in text
    assert "sasl" not in text and "ssl" not in text


@pytest.mark.parametrize(
    ("security", "java", "librdkafka"),
    [
        (ClientSecurity("SASL_SSL", "alice", "a-pw", TLS),
         {"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
          "sasl.jaas.config": f'{JAAS} username="alice" password="a-pw";',
          "ssl.truststore.location": "/state/tls/truststore.p12", "ssl.truststore.password": "store-pw",
          "ssl.truststore.type": "PKCS12"},
         {"security.protocol": "sasl_ssl", "sasl.mechanism": "PLAIN", "sasl.username": "alice",
          "sasl.password": "a-pw", "ssl.ca.location": "/state/tls/ca.pem"}),
        (ClientSecurity("SASL_PLAINTEXT", "bob", "b-pw"),
         {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
          "sasl.jaas.config": f'{JAAS} username="bob" password="b-pw";'},
         {"security.protocol": "sasl_plaintext", "sasl.mechanism": "PLAIN", "sasl.username": "bob",
          "sasl.password": "b-pw"}),
        (ClientSecurity("PLAINTEXT"), {"security.protocol": "PLAINTEXT"}, {"security.protocol": "plaintext"}),
    ],
)  # fmt: skip
def test_client_settings_for_java_and_librdkafka(security, java, librdkafka):
    assert security.java() == java
    assert security.librdkafka() == librdkafka


@pytest.mark.parametrize(
    ("listeners", "users", "message"),
    [
        ((), {}, "at least one client listener"),
        (("SASL_PLAIN",), {"a": "b"}, r"unknown listener protocols \['SASL_PLAIN'\]"),
        (("SSL", "SSL"), {}, "each listener protocol at most once"),
        (("SASL_SSL",), {}, "a SASL listener needs at least one user"),
        (("SASL_PLAINTEXT",), {"alice": 'pass"word'}, "password of 'alice' must be non-empty, without whitespace"),
        (("SASL_PLAINTEXT",), {"smt-local-broker": "x"}, "reserved for the broker itself"),
    ],
)
def test_bad_security_is_refused(listeners, users, message):
    with pytest.raises(ValueError, match=message):
        BrokerSecurity(listeners, users)


@pytest.mark.kafka
def test_a_sasl_ssl_broker_from_the_cli_authenticates_its_users(capsys, tmp_path):
    state = tmp_path / "broker"
    try:
        assert cli.main(["local", "kafka", "--state-dir", str(state), "start", "--port", "0", "--listener", "SASL_SSL",
                         "--user", "alice:a-secret"]) == 0  # fmt: skip
        lines = capsys.readouterr().out.strip().splitlines()
        servers = lines[-1]
        port = int(re.fullmatch(r"127\.0\.0\.1:(\d+)", servers).group(1))
        assert lines[1] == f"listener SASL_SSL {servers}"
        assert lines[2].startswith(f"TLS CA certificate {state / 'tls' / 'ca.pem'}; truststore ")

        trusted = ssl.create_default_context(cafile=str(state / "tls" / "ca.pem"))
        assert fetch_metadata("127.0.0.1", port, ssl_context=trusted, sasl_plain=("alice", "a-secret")).brokers == (
            (1, "127.0.0.1", port),
        )
        with pytest.raises(SaslAuthenticationFailed, match="as 'alice' failed: Authentication failed"):
            fetch_metadata("127.0.0.1", port, ssl_context=trusted, sasl_plain=("alice", "wrong"))
        with pytest.raises(ssl.SSLCertVerificationError):
            untrusted = ssl.create_default_context()
            fetch_metadata("127.0.0.1", port, ssl_context=untrusted, sasl_plain=("alice", "a-secret"))

        # Stopped and started without flags, it keeps its listeners, users and port.
        LocalKafka(state, port=0).stop()
        restarted = LocalKafka(state, port=0).start()
        assert restarted.listeners == {"SASL_SSL": servers}
        assert fetch_metadata("127.0.0.1", port, ssl_context=trusted, sasl_plain=("alice", "a-secret")).brokers
    finally:
        LocalKafka(state, port=0).stop()
