"""A batch write to Kafka through Spark's DataSource V2 path.

Spark writes ``format("kafka")`` through its V1 path by default
(``spark.sql.sources.useV1SourceList`` names ``kafka``): the records are
written by an RDD action inside a command, so what the written DataFrame
observes (``DataFrame.observe``, which brings a pipeline's counts back) is
never reported.  The V2 path writes the same records with the same options
as part of the query itself, and its observed metrics arrive.

Over Spark Connect the V2 path fails when the connector's jars reached the
server as session artifacts (its task results are read back with another
class loader), so there the records are cached and counted first, an action
that reports the metrics, and then written through the V1 path.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Iterator, Mapping

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["write_kafka_batch"]

V1_SOURCES_KEY = "spark.sql.sources.useV1SourceList"
#: Spark's default for the key (unchanged since 3.0).
_V1_SOURCES_DEFAULT = "avro,csv,json,kafka,orc,parquet,text"


def write_kafka_batch(df: "DataFrame", options: Mapping[str, str]) -> None:
    """Write ``df`` (Kafka's sink columns) to Kafka, appending, so that what it observes is reported."""
    from smt.sessions import is_connect

    if not is_connect(df.sparkSession):
        with _kafka_writes_v2(df.sparkSession):
            df.write.format("kafka").options(**options).mode("append").save()
        return
    cached = df.persist()
    try:
        cached.count()
        cached.write.format("kafka").options(**options).mode("append").save()
    finally:
        cached.unpersist()


@contextlib.contextmanager
def _kafka_writes_v2(spark: "SparkSession") -> Iterator[None]:
    """The session's V1 source list without ``kafka`` while the block runs, then as it was."""
    before = spark.conf.get(V1_SOURCES_KEY, _V1_SOURCES_DEFAULT)
    names = [name.strip() for name in before.split(",") if name.strip()]
    if "kafka" not in (name.lower() for name in names):
        yield
        return
    spark.conf.set(V1_SOURCES_KEY, ",".join(name for name in names if name.lower() != "kafka"))
    try:
        yield
    finally:
        spark.conf.set(V1_SOURCES_KEY, before)
