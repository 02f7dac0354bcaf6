"""Fixtures for the Kafka connector tests: the broker, and Spark with the Kafka jars."""

from __future__ import annotations

import pytest

from connectors.kafka import spark_jars


@pytest.fixture(scope="session")
def kafka_spark(spark):
    """The shared Spark session, checked to have Spark's Kafka connector on its classpath."""
    have = spark.sparkContext.getConf().get("spark.jars", "")
    missing = [jar for jar in spark_jars() if jar not in have]
    if missing:
        pytest.fail(
            "the shared Spark session was started without the Kafka connector jars "
            f"(missing {missing}); give `smt_spark_conf` spark.jars=connectors.kafka.spark_jars() at the root"
        )
    return spark
