"""The jars Spark needs to read and write Kafka.

Spark's own Kafka connector (``spark-sql-kafka-0-10``, for the Spark version
PySpark is) is resolved with Maven into the project cache once; the Spark
session gets the jar files through ``spark.jars``, so nothing is resolved over
the network (Ivy) when a session starts.  Jars Spark already ships (Scala,
Hadoop client, compression codecs) are left out, so the classpath holds one
copy of each library.
"""

from __future__ import annotations

import os
import re
from importlib.metadata import version
from pathlib import Path

from smt.local import maven

__all__ = ["SPARK_KAFKA_BUNDLE", "spark_jars"]

SCALA_BINARY_VERSION = "2.13"
#: The connector must match the Spark that runs it, so it follows the installed PySpark.
SPARK_VERSION = version("pyspark")

SPARK_KAFKA_BUNDLE = maven.Bundle(
    f"spark-sql-kafka-0-10_{SCALA_BINARY_VERSION}-{SPARK_VERSION}",
    (
        maven.Artifact(
            "org.apache.spark", f"spark-sql-kafka-0-10_{SCALA_BINARY_VERSION}", SPARK_VERSION
        ),
    ),
)

_VERSIONED_JAR = re.compile(r"^(?P<name>.+?)-\d[^-]*(?:-[^-]+)*\.jar$")


def spark_jars() -> list[str]:
    """Paths of the connector's jars that Spark does not already ship.

    Fetches them on first use (see :func:`smt.local.maven.resolve`, which
    raises :class:`smt.local.maven.MavenError` if that fails).
    """
    shipped = _shipped_artifact_names()
    return [str(jar) for jar in maven.resolve(SPARK_KAFKA_BUNDLE) if _artifact_name(jar) not in shipped]


def _artifact_name(jar: Path) -> str:
    # Maven's local repository lays jars out as .../<artifactId>/<version>/<file>.
    return jar.parent.parent.name


def _shipped_artifact_names() -> set[str]:
    import pyspark

    spark_home = os.environ.get("SPARK_HOME")
    jars_dir = Path(spark_home) / "jars" if spark_home else Path(pyspark.__file__).parent / "jars"
    names = set()
    for jar in jars_dir.glob("*.jar"):
        match = _VERSIONED_JAR.match(jar.name)
        if match:
            names.add(match.group("name"))
    return names
