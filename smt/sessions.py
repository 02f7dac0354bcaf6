"""Classic and Spark Connect sessions: the few things the code must ask each differently.

A classic session (``pyspark.sql.SparkSession`` with a ``SparkContext``)
reaches the JVM; a Spark Connect session (``spark.remote=sc://...``) is only
a client of a remote server: no ``sparkContext``, no accumulators, no py4j.
Everything else (DataFrames, ``mapInArrow``, readers and writers) is the
same API on both.
"""

from __future__ import annotations

from typing import Any

__all__ = ["connect_session", "default_parallelism", "is_connect", "new_observation"]


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
    row = spark.range(0, 1 << 16).select(F.max(F.spark_partition_id()).alias("last")).first()
    return int(row["last"]) + 1


def connect_session(url: str) -> Any:
    """The Spark Connect session for ``url`` (``sc://host:port``).

    Built with the Connect client's own builder: PySpark's generic builder
    would also switch this whole process to Connect mode (an environment
    variable), and a classic session here could no longer make Observations.
    """
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    return ConnectSession.builder.remote(url).getOrCreate()


def new_observation(spark: Any, name: str) -> Any:
    """An ``Observation`` for DataFrames of ``spark``, whichever kind of session the process made first.

    ``pyspark.sql.Observation()`` picks the Connect class when the process
    is in Connect mode, even for a classic DataFrame.
    """
    if is_connect(spark):
        from pyspark.sql.connect.observation import Observation as ConnectObservation

        return ConnectObservation(name)
    from pyspark.sql.observation import Observation as ClassicObservation

    observation = object.__new__(ClassicObservation)
    observation.__init__(name)
    return observation
