"""The jars and session settings of each table format, fetched from Maven Central.

Delta Lake and Apache Iceberg publish one Spark integration per Spark
release line; the table below pins, for each line of the supported PySpark
range, the release built for it.  The jars are resolved with Maven into the
project cache (:mod:`smt.maven`) and given to Spark through ``spark.jars``,
like Spark's Kafka connector (``smt local fetch`` fetches them ahead).

Checked on PySpark 4.3.0 (November 2026): Maven Central has neither a Delta
release for Spark 4.3 (the newest, ``delta-spark_2.13`` 4.4.0, is built for
Spark 4.2: it creates and appends to a table on 4.3 but fails to read one,
``NoSuchMethodError: LogicalRDD.<init>``) nor an Iceberg runtime for 4.2 or
4.3 (``iceberg-spark-runtime-4.1_2.13`` 1.12.0 fails at once on 4.2 and
4.3, ``IncompatibleClassChangeError``).  The table sink's Delta and Iceberg
tests passed with Delta 4.4.0 on PySpark 4.2.0, and with Delta 4.3.1 and
Iceberg 1.12.0 on PySpark 4.1.0.  On such a Spark the sink refuses the
format with a message naming this, unless ``sink.format.jars=none`` says the
user gives the jars and settings in ``spark.*`` keys.
"""

from __future__ import annotations

import dataclasses
import re
from importlib.metadata import version
from typing import Iterable

from smt import maven
from smt.config import ConfigProblem
from smt.errors import ConfigError, SmtError

__all__ = [
    "FormatJars",
    "FORMAT_JARS",
    "UnsupportedSparkError",
    "check_format_runs",
    "format_bundle",
    "format_spark_conf",
    "formats_spark_conf",
    "spark_line",
    "table_bundles",
]

SCALA_BINARY_VERSION = "2.13"


class UnsupportedSparkError(SmtError):
    """The format has no release for the running Spark on Maven Central; the message says which exist."""


@dataclasses.dataclass(frozen=True)
class FormatJars:
    """One format's artifact per Spark line, and the session settings it needs."""

    name: str
    #: Spark line ("4.1") -> (group, artifact, version).
    releases: dict[str, tuple[str, str, str]]
    session: dict[str, str]
    #: Why the lines missing from ``releases`` have none (shown to the user).
    missing_note: str = ""


#: PostgreSQL's JDBC driver for ``sink.format=jdbc`` (any Spark line).
POSTGRESQL_DRIVER = ("org.postgresql", "postgresql", "42.7.8")

FORMAT_JARS: dict[str, FormatJars] = {
    "delta": FormatJars(
        "delta",
        {
            "4.0": ("io.delta", f"delta-spark_{SCALA_BINARY_VERSION}", "4.0.1"),
            "4.1": ("io.delta", f"delta-spark_{SCALA_BINARY_VERSION}", "4.3.1"),
            "4.2": ("io.delta", f"delta-spark_{SCALA_BINARY_VERSION}", "4.4.0"),
        },
        {
            "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
            "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        },
        "the newest, io.delta:delta-spark_2.13:4.4.0, is built for Spark 4.2 and fails to read "
        "a table on Spark 4.3 (NoSuchMethodError: LogicalRDD.<init>)",
    ),
    "iceberg": FormatJars(
        "iceberg",
        {
            "4.0": ("org.apache.iceberg", f"iceberg-spark-runtime-4.0_{SCALA_BINARY_VERSION}", "1.10.1"),
            "4.1": ("org.apache.iceberg", f"iceberg-spark-runtime-4.1_{SCALA_BINARY_VERSION}", "1.12.0"),
        },
        {"spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"},
        "the newest, org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.12.0, is built for Spark 4.1 and "
        "fails on Spark 4.2 and 4.3 (IncompatibleClassChangeError)",
    ),
    "jdbc": FormatJars("jdbc", {}, {}),
}


def spark_line(spark_version: str | None = None) -> str:
    """``major.minor`` of ``spark_version`` (default: the installed PySpark)."""
    numbers = re.findall(r"\d+", spark_version or version("pyspark"))
    return ".".join(numbers[:2])


def format_bundle(fmt: str, spark_version: str | None = None) -> maven.Bundle | None:
    """The Maven bundle ``fmt`` needs on this Spark, ``None`` when it needs none (parquet, orc).

    Raises :class:`UnsupportedSparkError` when the format has no release for
    the Spark line.
    """
    if fmt == "jdbc":
        group, artifact, release = POSTGRESQL_DRIVER
        return maven.Bundle(f"{artifact}-{release}", (maven.Artifact(group, artifact, release),))
    jars = FORMAT_JARS.get(fmt)
    if jars is None:
        return None
    line = spark_line(spark_version)
    if line not in jars.releases:
        supported = ", ".join(sorted(jars.releases))
        raise UnsupportedSparkError(
            f"Maven Central has no {fmt} release for Spark {line} ({jars.missing_note}); "
            f"the sink fetches {fmt} for Spark {supported}"
        )
    group, artifact, release = jars.releases[line]
    return maven.Bundle(f"{artifact}-{release}", (maven.Artifact(group, artifact, release),))


def session_settings(fmt: str) -> dict[str, str]:
    """The ``spark.*`` settings ``fmt`` needs in the session (extensions, catalog)."""
    jars = FORMAT_JARS.get(fmt)
    return dict(jars.session) if jars is not None else {}


def check_format_runs(fmt: str, prefix: str) -> maven.Bundle | None:
    """The bundle ``fmt`` needs, checked at configure time so ``smt validate`` refuses what ``smt run`` does.

    Looks the running Spark line up in :data:`FORMAT_JARS` (no network).
    ``prefix`` (``sink.``, ``source.``) names the connector's keys in the
    :class:`~smt.errors.ConfigError` raised when the format has no release
    for the running Spark.
    """
    try:
        return format_bundle(fmt)
    except UnsupportedSparkError as exc:
        raise ConfigError(
            [
                ConfigProblem(
                    f"{prefix}format",
                    f"{exc}; run on a PySpark the format supports (pip install 'spark-smt[{fmt}]'), or give its "
                    f"jars and session settings in spark.* keys with {prefix}format.jars=none",
                    fmt,
                )
            ]
        ) from None


def format_spark_conf(fmt: str, prefix: str) -> dict[str, str]:
    """The ``spark.*`` settings of a table connector reading or writing ``fmt``: its jars and session settings.

    Raises the :class:`~smt.errors.ConfigError` of :func:`check_format_runs`.
    """
    bundle = check_format_runs(fmt, prefix)
    conf = session_settings(fmt)
    if bundle is not None:
        conf["spark.jars"] = ",".join(maven.jars_spark_lacks(maven.resolve(bundle)))
    return conf


def formats_spark_conf(formats: Iterable[str], prefix: str) -> dict[str, str]:
    """The ``spark.*`` settings of one session that reads or writes each of ``formats``
    (:func:`format_spark_conf`'s, with the jars and the session extensions of all joined)."""
    conf: dict[str, str] = {}
    for fmt in formats:
        for key, value in format_spark_conf(fmt, prefix).items():
            joined = key in _JOINED_SETTINGS and key in conf
            conf[key] = f"{conf[key]},{value}" if joined else value
    return conf


#: The session settings that list several values, comma-separated.
_JOINED_SETTINGS = ("spark.jars", "spark.sql.extensions")


def table_bundles(spark_version: str | None = None) -> tuple[list[maven.Bundle], list[str]]:
    """Every format's bundle for this Spark (what ``smt local fetch`` fetches), and a note per format without one."""
    bundles, notes = [], []
    for fmt in FORMAT_JARS:
        try:
            bundles.append(format_bundle(fmt, spark_version))
        except UnsupportedSparkError as exc:
            notes.append(f"table sink, format {fmt}: {exc}")
    return bundles, notes
