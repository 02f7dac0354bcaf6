"""A tiny third-party connector plugin for the tests, registered through a real pluggy hook."""

from smt.config import ConfigDef, ConfigType
from smt.connector import Source
from smt.plugins import hookimpl


class CountdownSource(Source):
    """A third-party source: the values n, n-1, ..., 1."""

    name = "countdown"
    config_def = ConfigDef().define("from", ConfigType.INT, 3)

    def read(self, spark, streaming=False):
        from pyspark.sql import functions as F

        numbers = spark.range(self.config["from"], 0, -1)
        return numbers.select(
            F.lit(None).cast("binary").alias("key"),
            F.encode(F.col("id").cast("string"), "UTF-8").alias("value"),
            F.lit("countdown").alias("topic"),
            F.lit(0).alias("partition"),
            F.col("id").alias("offset"),
            F.current_timestamp().alias("timestamp"),
            F.lit(0).alias("timestampType"),
            F.array().cast("array<struct<key:string,value:binary>>").alias("headers"),
        )


class ThirdPartyPlugin:
    @hookimpl
    def smt_connectors(self):
        return [CountdownSource]
