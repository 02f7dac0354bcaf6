"""`smt local kafka start|stop|status` runs a real broker."""

from __future__ import annotations

import re

import pytest

from smt import cli
from smt.commands.output import EXIT_NOT_RUNNING
from smt.local._probe import fetch_metadata
from smt.local.kafka import BrokerError, LocalKafka

pytestmark = pytest.mark.kafka

HOST_PORT = re.compile(r"^127\.0\.0\.1:(\d+)$")


def run(capsys, *argv: str) -> tuple[int, list[str]]:
    code = cli.main(["local", *argv])
    captured = capsys.readouterr()
    assert code != 1, captured.err
    return code, captured.out.strip().splitlines()


def test_start_status_stop(capsys, tmp_path):
    state = str(tmp_path / "broker")
    try:
        code, lines = run(capsys, "kafka", "--state-dir", state, "start", "--port", "0")
        assert code == 0
        assert "broker started" in lines[0]
        port = int(HOST_PORT.match(lines[-1]).group(1))
        assert fetch_metadata("127.0.0.1", port).brokers == ((1, "127.0.0.1", port),)

        code, lines = run(capsys, "kafka", "--state-dir", state, "status")
        assert code == 0
        assert "running" in lines[0]
        assert lines[-1] == f"127.0.0.1:{port}"

        code, lines = run(capsys, "kafka", "--state-dir", state, "start")
        assert code == 0
        assert "already running" in lines[0]
        assert lines[-1] == f"127.0.0.1:{port}"
    finally:
        code, lines = run(capsys, "kafka", "--state-dir", state, "stop")
    assert code == 0
    assert lines[-1].startswith("Kafka broker stopped (pid ")
    with pytest.raises(OSError):
        fetch_metadata("127.0.0.1", port, timeout=1.0)

    code, lines = run(capsys, "kafka", "--state-dir", state, "status")
    assert code == EXIT_NOT_RUNNING
    assert lines == [f"Kafka broker not running (state {state})"]

    code, lines = run(capsys, "kafka", "--state-dir", state, "stop")
    assert code == 0
    assert lines == [f"no Kafka broker running for {state}"]


def test_a_restarted_broker_keeps_its_topics(tmp_path):
    from smt.testing.kafka import KafkaTestBroker

    local = LocalKafka(tmp_path / "broker", port=0)
    try:
        first = local.start()
        KafkaTestBroker(first.bootstrap_servers).create_topic("kept", partitions=2)
        local.stop()
        second = local.start()
        assert second.bootstrap_servers == first.bootstrap_servers
        host, port = second.bootstrap_servers.split(":")
        assert fetch_metadata(host, int(port)).topics.get("kept") == 2
    finally:
        local.stop()


def test_start_without_java_names_the_problem(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    code = cli.main(["local", "kafka", "--state-dir", str(tmp_path / "broker"), "start"])
    assert code == 1
    assert re.search(r"^error: cannot start Kafka: no 'java' on PATH", capsys.readouterr().err)


def test_a_broker_that_exits_during_start_up_is_reported_with_its_log(tmp_path):
    local = LocalKafka(tmp_path / "broker", port=0)
    local.start()
    local.stop()
    config = tmp_path / "broker" / "server.properties"
    config.write_text(config.read_text() + "node.id=not-a-number\n")  # the last value wins
    with pytest.raises(
        BrokerError, match=r"exited during start-up; log .*\n.*ERROR Exiting Kafka.*\n.*Invalid value not-a-number"
    ):
        local.start()
    assert not local.status().running


def test_usage_errors_exit_2(capsys):
    assert cli.main(["local", "kafka", "restart"]) == 2
    assert "invalid choice: 'restart'" in capsys.readouterr().err


def test_a_cluster_id_never_starts_with_a_dash(monkeypatch):
    # kafka-storage reads "--cluster-id -xyz" as a missing value and an unknown option.
    import uuid

    from smt.local import kafka

    ids = iter([uuid.UUID(bytes=b"\xf8" + bytes(15)), uuid.UUID(bytes=b"\x00" * 16)])
    monkeypatch.setattr(kafka.uuid, "uuid4", lambda: next(ids))
    assert kafka._new_cluster_id() == "AAAAAAAAAAAAAAAAAAAAAA"
