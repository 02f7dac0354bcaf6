"""Spark's Kafka connector follows the installed PySpark, or the newest release before it."""

from __future__ import annotations

import pytest

from connectors.kafka import spark_jars
from connectors.kafka._jars import SPARK_VERSION, connector_version
from smt import maven

PUBLISHED = ["3.5.9", "4.0.0", "4.0.0-preview2", "4.0.4", "4.1.3", "4.2.0", "4.2.0-preview5"]


@pytest.mark.parametrize(
    ("spark", "connector"),
    [
        ("4.2.0", "4.2.0"),  # published: its own
        ("4.0.5", "4.0.4"),  # a newer patch on PyPI than on Maven Central
        ("4.3.0", "4.2.0"),  # a new minor line: the newest release, never a preview
        ("4.0.0", "4.0.0"),
        ("5.0.0", None),  # never a connector of another major version
        ("3.5.0", None),  # nor one released after the Spark it would serve
    ],
)
def test_connector_version_is_the_newest_release_not_after_spark(spark, connector):
    assert connector_version(spark, PUBLISHED) == connector


def test_spark_jars_hold_the_connector_maven_central_has_for_this_pyspark():
    expected = connector_version(
        SPARK_VERSION, maven.published_versions("org.apache.spark", "spark-sql-kafka-0-10_2.13")
    )
    connectors = [jar for jar in spark_jars() if "/spark-sql-kafka-0-10_2.13/" in jar]
    assert connectors == [
        f"{maven.cache_dir()}/maven-repo/org/apache/spark/spark-sql-kafka-0-10_2.13/{expected}/"
        f"spark-sql-kafka-0-10_2.13-{expected}.jar"
    ]


def test_an_older_connector_is_said_once_by_smt_local_fetch_not_on_every_run(caplog):
    import subprocess
    import sys

    from connectors.kafka import older_connector_note, spark_kafka_bundle

    older = maven.Bundle("x", (maven.Artifact("org.apache.spark", "spark-sql-kafka-0-10_2.13", "4.2.0"),))
    assert (
        older_connector_note(older)
        == (
            f"Maven Central has no spark-sql-kafka-0-10_2.13 {SPARK_VERSION} (PySpark's version); "
            "using 4.2.0, the newest release before it"
        )
        or SPARK_VERSION == "4.2.0"
    )
    with caplog.at_level("INFO", logger="connectors.kafka"):
        spark_jars()
    assert not [r for r in caplog.records if r.levelname == "WARNING"]

    done = subprocess.run([sys.executable, "-m", "smt", "local", "fetch"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    note = older_connector_note(spark_kafka_bundle())
    assert [line for line in done.stderr.splitlines() if line.startswith("note:")] == (
        [f"note: {note}"] if note else []
    )


def test_smt_local_fetch_prints_the_jars_a_users_own_pyspark_session_needs_for_kafka():
    import subprocess
    import sys

    help_text = subprocess.run([sys.executable, "-m", "smt", "local", "--help"], capture_output=True, text=True).stdout
    assert "print the jar paths" in " ".join(help_text.split())
    done = subprocess.run([sys.executable, "-m", "smt", "local", "fetch"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    printed = [line for line in done.stdout.splitlines() if line.startswith("spark.jars=")]
    assert printed == [f"spark.jars={','.join(spark_jars())}"]
    assert "spark-sql-kafka-0-10_2.13" in printed[0]
