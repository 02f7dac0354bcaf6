"""Classic and Spark Connect sessions: the few things the code must ask each differently.

A classic session (``pyspark.sql.SparkSession`` with a ``SparkContext``)
reaches the JVM; a Spark Connect session (``spark.remote=sc://...``) is only
a client of a remote server: no ``sparkContext``, no accumulators, no py4j.
Everything else (DataFrames, ``mapInArrow``, readers and writers) is the
same API on both.
"""

from __future__ import annotations

from typing import Any

__all__ = ["connect_session", "default_parallelism", "is_connect"]


def is_connect(spark: Any) -> bool:
    """True for a Spark Connect session (or a DataFrame's session)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def default_parallelism(spark: Any) -> int:
    """Spark's default parallelism: the number of partitions a ``spark.range`` gets.

    A Connect client has no ``SparkContext`` to ask, so it asks the server
    with a query over one row per partition (a fraction of a second).
    """
    if not is_connect(spark):
        return spark.sparkContext.defaultParallelism
    from pyspark.sql import functions as F

    configured = spark.conf.get("spark.default.parallelism", None)
    if configured:
        return int(configured)
    partitions = spark.range(0, 1 << 16).select(F.spark_partition_id().alias("partition"))
    row = partitions.agg(F.max("partition").alias("last")).first()
    return int(row["last"]) + 1


def connect_session(url: str) -> Any:
    """The Spark Connect session for ``url`` (``sc://host:port``).

    As with PySpark's own builder, the process is then in Connect mode:
    ``pyspark.sql.functions`` build Connect columns, so a classic session
    cannot be used in the same process.
    """
    from pyspark.sql import SparkSession

    return SparkSession.builder.remote(url).getOrCreate()
