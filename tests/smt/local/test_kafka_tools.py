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


def test_the_client_port_prefers_the_last_ones_then_kafkas_default(monkeypatch):
    held = _held_port()
    free = _kafka_setup.free_port()
    try:
        monkeypatch.setattr(_kafka_setup, "DEFAULT_PORT", free)
        assert choose_ports(("PLAINTEXT",), {}, False, None).listeners == {"PLAINTEXT": free}
        # A broker that ran on another port (the default was taken then) comes back there, though the
        # default is free now: its pipelines point at the port it printed.
        last = _kafka_setup.free_port()
        assert choose_ports(("PLAINTEXT",), {"listener_ports": {"PLAINTEXT": last}}, True, None).listeners == {
            "PLAINTEXT": last
        }
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


@pytest.mark.kafka
def test_topics_describe_names_the_partitions_and_settings(broker, capfd):
    state, _ = broker
    assert smt_kafka(state, "topics", "create", "described", "--partitions", "2", "--config", "retention.ms=1234") == 0
    capfd.readouterr()
    assert smt_kafka(state, "topics", "describe", "described") == EXIT_OK
    out = capfd.readouterr().out
    assert "Topic: described" in out and "PartitionCount: 2" in out and "retention.ms=1234" in out
    assert [line.split("\t")[2] for line in out.splitlines() if "\tPartition: " in line] == ["Partition: 0",
                                                                                           "Partition: 1"]  # fmt: skip
    assert smt_kafka(state, "topics", "describe", "absent") == EXIT_FAILED
    assert "error: topic 'absent' does not exist" in capfd.readouterr().err


@pytest.mark.kafka
def test_groups_show_each_groups_committed_offsets_and_lag(broker, capfd):
    from confluent_kafka import Consumer, TopicPartition

    state, client = broker
    topic = client.create_topic("lagging", partitions=2)
    client.produce(topic, [{"value": str(i), "partition": i % 2} for i in range(7)])  # 4 on p0, 3 on p1
    consumer = Consumer({"bootstrap.servers": client.bootstrap_servers, "group.id": "lag-watcher"})
    consumer.commit(offsets=[TopicPartition(topic, 0, 1), TopicPartition(topic, 1, 3)], asynchronous=False)
    consumer.close()

    assert smt_kafka(state, "groups", "list") == EXIT_OK
    assert "lag-watcher" in capfd.readouterr().out.splitlines()
    assert smt_kafka(state, "groups", "describe", "lag-watcher") == EXIT_OK
    rows = [line.split() for line in capfd.readouterr().out.splitlines() if line.startswith("lag-watcher ")]
    # GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG ...
    assert sorted(row[2:6] for row in rows) == [["0", "1", "4", "3"], ["1", "3", "3", "0"]]


@pytest.mark.kafka
def test_consume_read_committed_leaves_out_an_aborted_transaction_and_json_is_unambiguous(broker, capfd):
    from confluent_kafka import Producer

    state, client = broker
    topic = client.create_topic("transactional")
    producer = Producer({"bootstrap.servers": client.bootstrap_servers, "transactional.id": "tools-test"})
    producer.init_transactions()
    for value, commit in ((b"kept", True), (b"aborted", False)):
        producer.begin_transaction()
        producer.produce(topic, value=value, key=b"k\t1", headers=[("a:b,c", b"x\ty"), ("raw", b"\xff\x00")])
        producer.flush()  # sent before the abort (which drops what is still queued), so it is in the log
        producer.commit_transaction() if commit else producer.abort_transaction()

    assert smt_kafka(state, "consume", topic, "--idle", "3") == EXIT_OK
    assert capfd.readouterr().out.splitlines() == ["kept", "aborted"]
    assert smt_kafka(state, "consume", topic, "--isolation", "read_committed", "--idle", "3") == EXIT_OK
    assert capfd.readouterr().out.splitlines() == ["kept"]
    assert smt_kafka(state, "consume", topic, "--json", "--isolation", "read_committed", "--idle", "3") == EXIT_OK
    [line] = capfd.readouterr().out.splitlines()
    record = __import__("json").loads(line)
    assert {k: record[k] for k in ("partition", "offset", "key", "value", "headers")} == {
        "partition": 0, "offset": 0, "key": "k\t1", "value": "kept",
        "headers": [["a:b,c", "x\ty"], ["raw", {"base64": "/wA="}]],
    }  # fmt: skip
    assert smt_kafka(state, "consume", topic, "--json", "--keys") == EXIT_FAILED
    assert capfd.readouterr().err.splitlines() == [
        "error: --json prints every part of a record: leave out --keys, --headers, --timestamps and --partitions"
    ]


@pytest.mark.java_oracle
def test_fetch_with_jars_prints_each_bundles_jar_paths(capsys):
    """The jars are in the cache (./test.sh fetched them): each bundle's line is followed by its jars, comma-joined."""
    assert main(["local", "fetch", "--jars"]) == EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    kafka = next(index for index, line in enumerate(lines) if line.startswith("spark-sql-kafka"))
    count = int(lines[kafka].split(": ")[1].split()[0])
    jars = lines[kafka + 1].strip().split(",")
    assert len(jars) == count and all(jar.endswith(".jar") and os.path.isfile(jar) for jar in jars)
    assert any("spark-sql-kafka-0-10" in jar for jar in jars)
    assert any(line.startswith("debezium-connector-postgres-3.6.1.Final: ") for line in lines)  # its worker's jars
