"""Shared test set-up: our pytest plugin, one Spark session with Spark's Kafka connector, one Spark Connect server."""

import pytest


def pytest_configure(config):
    # Installed, the plugin loads through its pytest11 entry point (named
    # "smt"); from a checkout that is not installed, load it here.
    if not config.pluginmanager.has_plugin("smt"):
        config.pluginmanager.import_plugin("smt.testing.plugin")


@pytest.fixture(scope="session")
def smt_spark_conf() -> dict[str, str]:
    # Jars can only be given when the shared session starts, and any test may
    # start it: every session gets Spark's Kafka connector and the PostgreSQL
    # JDBC driver the table sink's upserts use (fetched with Maven into the
    # user's cache on first use).
    from connectors.kafka import spark_jars
    from connectors.table.jars import format_bundle
    from smt import maven

    jdbc = maven.jars_spark_lacks(maven.resolve(format_bundle("jdbc")))
    return {"spark.jars": ",".join([*spark_jars(), *jdbc])}


@pytest.fixture(scope="session")
def spark_connect_server(connect_servers, tmp_path_factory):
    """A Spark Connect server (``local[2]``, 127.0.0.1), one for the test session: its ``url`` is ``sc://...``.

    It starts on first use (about 20 s) and stops at the end.  Clients run in
    processes of their own (:mod:`tests.connect_client`): a Connect session
    would switch this process, and its classic ``spark`` session, to Connect.
    Started with Spark's Kafka connector, as a server that serves many
    pipelines must be (a connector uploaded by a session loads only once).
    """
    from connectors.kafka import spark_jars

    conf = {"spark.jars": ",".join(spark_jars())}
    with connect_servers(tmp_path_factory.mktemp("spark-connect"), conf=conf) as server:
        yield server
