"""`smt local kafka topics|produce|consume` with Kafka's own tools, and where the broker listens."""

from __future__ import annotations

import os
import socket

import pytest

from smt.cli import main
from smt.commands.output import EXIT_FAILED, EXIT_OK
from smt.local import _kafka_setup
from smt.local._kafka_setup import BrokerError, choose_ports


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    from smt.testing.kafka import KafkaTestBroker, local_broker

    state = tmp_path_factory.mktemp("tools-broker")
    with local_broker(state) as status:
        yield str(state), KafkaTestBroker(status.bootstrap_servers)


def smt_kafka(state: str, *argv: str) -> int:
    return main(["local", "kafka", "--state-dir", state, *argv])


@pytest.mark.kafka
def test_topics_are_created_listed_and_deleted(broker, capfd):
    state, client = broker
    assert smt_kafka(state, "topics", "create", "users", "--partitions", "3") == EXIT_OK
    assert capfd.readouterr().out == "Created topic users.\n"
    assert smt_kafka(state, "topics", "create", "users") == EXIT_FAILED
    assert capfd.readouterr().err.splitlines() == ["error: Topic 'users' already exists."]
    assert smt_kafka(state, "topics", "list") == EXIT_OK
    assert "users" in capfd.readouterr().out.splitlines()
    assert client.topics() >= {"users"}
    assert smt_kafka(state, "topics", "delete", "users") == EXIT_OK
    assert capfd.readouterr().out == "Deleted topic users.\n"
    assert "users" not in client.topics()


@pytest.mark.kafka
def test_lines_in_with_keys_and_headers_come_out_the_same(broker, capfd, tmp_path):
    state, client = broker
    assert smt_kafka(state, "topics", "create", "lines") == EXIT_OK
    lines = 'trace:abc,source:cli\tuser-1\t{"n":1}\ntrace:def\tuser-2\tplain text\n'
    (tmp_path / "in.txt").write_text(lines)
    with open(tmp_path / "in.txt") as stdin:
        # The tool reads the process's standard input (file descriptor 0).
        saved = os.dup(0)
        os.dup2(stdin.fileno(), 0)
        try:
            assert smt_kafka(state, "produce", "lines", "--keys", "--headers") == EXIT_OK
        finally:
            os.dup2(saved, 0)
            os.close(saved)
    records = client.consume("lines", n=2)
    assert [(r.key, r.value, r.headers) for r in records] == [
        (b"user-1", b'{"n":1}', (("trace", b"abc"), ("source", b"cli"))),
        (b"user-2", b"plain text", (("trace", b"def"),)),
    ]
    capfd.readouterr()
    assert smt_kafka(state, "consume", "lines", "--keys", "--headers", "--idle", "2") == EXIT_OK
    assert capfd.readouterr().out == lines
    assert smt_kafka(state, "consume", "lines", "--max", "1") == EXIT_OK
    assert capfd.readouterr().out == '{"n":1}\n'


@pytest.mark.kafka
def test_a_missing_topic_or_broker_is_one_line(broker, capfd, tmp_path):
    state, _ = broker
    assert smt_kafka(state, "consume", "nope") == EXIT_FAILED
    assert capfd.readouterr().err.splitlines() == [
        "error: topic 'nope' does not exist; create it with `smt local kafka topics create nope`"
    ]
    assert smt_kafka(str(tmp_path / "none"), "topics", "list") == EXIT_FAILED
    assert capfd.readouterr().err.splitlines() == [
        f"error: no Kafka broker is running for {tmp_path / 'none'}; start one with `smt local kafka start`"
    ]


def _held_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


def test_the_client_port_prefers_kafkas_default_then_the_last_one(monkeypatch):
    held = _held_port()
    free = _kafka_setup.free_port()
    try:
        monkeypatch.setattr(_kafka_setup, "DEFAULT_PORT", free)
        assert choose_ports(("PLAINTEXT",), {}, False, None).listeners == {"PLAINTEXT": free}
        monkeypatch.setattr(_kafka_setup, "DEFAULT_PORT", held.getsockname()[1])
        earlier = {"listener_ports": {"PLAINTEXT": free}, "controller_port": _kafka_setup.free_port()}
        ports = choose_ports(("PLAINTEXT",), earlier, True, None)
        assert ports.listeners == {"PLAINTEXT": free} and not ports.needs_format
        assert choose_ports(("PLAINTEXT",), {}, False, 0).listeners["PLAINTEXT"] != held.getsockname()[1]
        with pytest.raises(BrokerError, match=rf"port {held.getsockname()[1]} on 127\.0\.0\.1 is in use; "
                           "choose another with --port, or --port 0 for any"):  # fmt: skip
            choose_ports(("PLAINTEXT",), {}, False, held.getsockname()[1])
    finally:
        held.close()


@pytest.mark.kafka
def test_topics_create_takes_settings_and_if_not_exists_and_consume_shows_where_records_are(broker, capfd):
    state, client = broker
    assert smt_kafka(state, "topics", "create", "kept", "--partitions", "2", "--config", "retention.ms=-1") == EXIT_OK
    assert capfd.readouterr().out == "Created topic kept.\n"
    assert smt_kafka(state, "topics", "create", "kept", "--if-not-exists") == EXIT_OK
    assert capfd.readouterr().out == "Topic kept already exists.\n"
    client.produce("kept", [{"value": "v", "partition": 1, "timestamp": 1700000000000}])

    assert smt_kafka(state, "consume", "kept", "--timestamps", "--partitions", "--idle", "2") == EXIT_OK
    [line] = capfd.readouterr().out.splitlines()
    assert line == "CreateTime:1700000000000\tPartition:1\tOffset:0\tv"


def test_the_connectors_readme_gives_the_status_exit_code_the_command_returns():
    from pathlib import Path

    from smt.commands.output import EXIT_NOT_RUNNING

    readme = (Path(__file__).resolve().parents[3] / "connectors" / "kafka" / "README.md").read_text()
    assert f"`smt local kafka status` prints the same (exit {EXIT_NOT_RUNNING} when it is not running)" in readme
