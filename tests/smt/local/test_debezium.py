"""The Debezium worker of `smt local debezium`: its settings, and a connector that fails says so.

Its happy path, a real change stream, is tests/examples/test_debezium_end_to_end.py's."""

from __future__ import annotations

import socket

import pytest

from smt.local.debezium import DebeziumError, DebeziumWorker, PostgresSource, worker_classpath


def test_the_connector_reads_with_pgoutput_into_one_partition_topics():
    settings = dict(
        line.split("=", 1)
        for line in PostgresSource(port=5433, tables=("public.a", "public.b"))
        .connector_properties("my-db")
        .splitlines()
    )
    assert settings["plugin.name"] == "pgoutput"
    assert settings["slot.name"] == settings["publication.name"] == "my_db"  # PostgreSQL's names: no dashes
    assert settings["table.include.list"] == "public.a,public.b"
    assert (settings["database.port"], settings["topic.prefix"]) == ("5433", "shop")
    assert settings["topic.creation.default.partitions"] == "1"


def test_the_classpath_is_connects_own_then_debeziums():
    jars = [jar.name for jar in worker_classpath()]
    assert "connect-runtime-4.1.1.jar" in jars and "connect-api-4.1.1.jar" in jars
    assert "connect-api-4.3.0.jar" not in jars  # the worker's Connect classes win, as in a Kafka distribution
    assert "debezium-connector-postgres-3.6.1.Final.jar" in jars
    assert any(jar.startswith("postgresql-") for jar in jars)


@pytest.mark.spark
def test_a_connector_that_cannot_reach_its_database_fails_the_wait(tmp_path, kafka_broker):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    worker = DebeziumWorker(tmp_path)
    worker.start(kafka_broker.bootstrap_servers, PostgresSource(port=port, tables=("public.t",)))
    try:
        with pytest.raises(
            DebeziumError,
            match=rf"Debezium's connector failed: Failed testing connection for jdbc:postgresql://127.0.0.1:{port}/postgres "
            r"with user 'postgres': org.postgresql.util.PSQLException: Connection to .* refused.*\(log: ",
        ):
            worker.wait_until_streaming(timeout=120)
    finally:
        worker.stop()
    assert worker.pid() is None
