"""Connectors register through the pluggy hooks; a third-party connector is usable by name."""

import pytest

from connectors.base import Source
from smt.config import ConfigDef, ConfigType
from smt.pipeline import PipelineSpec, run_pipeline
from smt.plugins import default_plugins, hookimpl, load_plugins


def test_built_in_connectors_are_registered_by_name_and_kafka_connect_alias():
    plugins = default_plugins()
    assert plugins.get("source", "generator").name == "generator"
    assert plugins.get("source", "org.apache.kafka.connect.file.FileStreamSourceConnector").name == "file"
    assert plugins.get("sink", "FileStreamSink").name == "file"
    assert plugins.get("sink", "console").name == "console"


class CountdownSource(Source):
    """A third-party source: the values n, n-1, ..., 1."""

    name = "countdown"
    config_def = ConfigDef().define("from", ConfigType.INT, 3)

    def read(self, spark, streaming=False):
        from pyspark.sql import functions as F

        numbers = spark.range(self.config["from"], 0, -1)
        return numbers.select(
            F.lit(None).cast("binary").alias("key"), F.encode(F.col("id").cast("string"), "UTF-8").alias("value"),
            F.lit("countdown").alias("topic"), F.lit(0).alias("partition"), F.col("id").alias("offset"),
            F.current_timestamp().alias("timestamp"), F.lit(0).alias("timestampType"),
            F.array().cast("array<struct<key:string,value:binary>>").alias("headers"))


class ThirdPartyPlugin:
    @hookimpl
    def smt_connectors(self):
        return [CountdownSource]


@pytest.mark.spark
def test_a_third_party_source_runs_by_name(spark, tmp_path):
    plugins = load_plugins(entry_points=False, extra_plugins=[ThirdPartyPlugin()])
    spec = PipelineSpec.from_properties({"source": "countdown", "source.from": "4", "sink": "file",
                                         "sink.path": str(tmp_path / "out")}, plugins=plugins)
    run_pipeline(spec, spark=spark)
    lines = sorted(line for path in (tmp_path / "out").glob("part-*") for line in path.read_text().split())
    assert lines == ["1", "2", "3", "4"]
