"""The jars Spark needs to read and write Kafka.

Spark's own Kafka connector (``spark-sql-kafka-0-10``, for the Spark version
PySpark is) is resolved (Apache Ivy) into the project cache once; the Spark
session gets the jar files through ``spark.jars``, so nothing is resolved over
the network (Ivy) when a session starts.  Jars Spark already ships (Scala,
Hadoop client, compression codecs) are left out, so the classpath holds one
copy of each library.

PyPI may publish a PySpark release before Maven Central has its connector
(PySpark 4.3.0 has none there yet): then the newest connector released
before it is used.  ``smt local fetch`` says so once, naming both versions
(:func:`older_connector_note`); a run logs it only at ``-v``.  The 4.2.0
connector passes the Kafka tests on Spark 4.3.0.
"""

from __future__ import annotations

import functools
import logging
import re
from importlib.metadata import version

from smt import maven

__all__ = ["connector_version", "older_connector_note", "spark_jars", "spark_kafka_bundle"]

log = logging.getLogger(__name__)

SCALA_BINARY_VERSION = "2.13"
#: The connector must match the Spark that runs it, so it follows the installed PySpark.
SPARK_VERSION = version("pyspark")
_GROUP = "org.apache.spark"
_CONNECTOR = f"spark-sql-kafka-0-10_{SCALA_BINARY_VERSION}"


def spark_kafka_bundle(spark_version: str = SPARK_VERSION) -> maven.Bundle:
    """The connector for ``spark_version``: its own release, else the newest released before it.

    Asks Maven Central only when the exact version is missing from the cache
    and from Maven Central.  Raises :class:`smt.maven.MavenError` when
    neither exists.
    """
    exact = _bundle(spark_version, spark_version)
    try:
        maven.resolve(exact)
        return exact
    except maven.MissingArtifactError:
        pass
    fallback = connector_version(spark_version, maven.published_versions(_GROUP, _CONNECTOR))
    if fallback is None:
        raise maven.MavenError(f"Maven Central has no {_GROUP}:{_CONNECTOR} for Spark {spark_version} or before it")
    return _bundle(spark_version, fallback)


def connector_version(spark_version: str, published: list[str]) -> str | None:
    """The newest release in ``published`` (no previews) of Spark's major version, not after ``spark_version``."""
    wanted = _numbers(spark_version)
    releases = [v for v in published if re.fullmatch(r"\d+\.\d+\.\d+", v)]
    candidates = [v for v in releases if _numbers(v)[0] == wanted[0] and _numbers(v) <= wanted]
    return max(candidates, key=_numbers, default=None)


def _numbers(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", release)[:3])


def _bundle(spark_version: str, connector: str) -> maven.Bundle:
    # Named after the PySpark version it serves, so a fallback is found again in the cache.
    return maven.Bundle(f"{_CONNECTOR}-{spark_version}", (maven.Artifact(_GROUP, _CONNECTOR, connector),))


def spark_jars() -> list[str]:
    """Paths of the connector's jars that Spark does not already ship.

    Fetches them on first use (see :func:`smt.maven.resolve`, which
    raises :class:`smt.maven.MavenError` if that fails).
    """
    bundle = spark_kafka_bundle()
    jars = maven.resolve(bundle)
    _log_older_connector(bundle)
    return maven.jars_spark_lacks(jars)


def older_connector_note(bundle: maven.Bundle | None = None) -> str | None:
    """A sentence when the connector is an older release than PySpark (none on Maven Central yet), else None."""
    bundle = bundle or spark_kafka_bundle()
    connector = next(artifact.version for artifact in bundle.artifacts if artifact.artifact == _CONNECTOR)
    if connector == SPARK_VERSION:
        return None
    return (
        f"Maven Central has no {_CONNECTOR} {SPARK_VERSION} (PySpark's version); using {connector}, "
        "the newest release before it"
    )


@functools.cache
def _log_older_connector(bundle: maven.Bundle) -> None:
    note = older_connector_note(bundle)
    if note is not None:
        log.info("%s", note)  # said once, by `smt local fetch`
