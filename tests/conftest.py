"""Shared test set-up: our pytest plugin, and one Spark session with Spark's Kafka connector."""

import pytest


def pytest_configure(config):
    # Installed, the plugin loads through its pytest11 entry point (named
    # "smt"); from a checkout that is not installed, load it here.
    if not config.pluginmanager.has_plugin("smt"):
        config.pluginmanager.import_plugin("smt.testing.plugin")


@pytest.fixture(scope="session")
def smt_spark_conf() -> dict[str, str]:
    # Jars can only be given when the shared session starts, and any test may
    # start it: every session gets Spark's Kafka connector (fetched with Maven
    # into the user's cache on first use).
    from connectors.kafka import spark_jars

    return {"spark.jars": ",".join(spark_jars())}
