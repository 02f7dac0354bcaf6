"""Fixtures for the Kafka connector tests: the broker, and a Spark session with the Kafka jars."""

from __future__ import annotations

import os
import sys

import pytest

from connectors.kafka import spark_jars
from smt.testing.kafka import kafka_broker  # noqa: F401  (a fixture)


@pytest.fixture(scope="session")
def kafka_spark():
    """A local Spark session whose classpath has Spark's Kafka connector."""
    from pyspark.sql import SparkSession

    jars = spark_jars()
    active = SparkSession.getActiveSession()
    if active is not None:
        have = active.sparkContext.getConf().get("spark.jars", "")
        missing = [jar for jar in jars if jar not in have]
        if missing:
            pytest.fail(f"a Spark session without the Kafka connector jars is already running; missing {missing}")
        yield active
        return
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("smt-kafka-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.jars", ",".join(jars))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    yield spark
    spark.stop()
