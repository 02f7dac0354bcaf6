"""Connectors register through the pluggy hooks; a third-party connector is usable by name."""

import pytest

from smt.errors import PluginError
from smt.pipeline import PipelineSpec, run_pipeline
from smt.plugins import default_plugins, hookimpl, load_plugins
from tests.connectors.sample_connectors import ThirdPartyPlugin


def test_built_in_connectors_are_registered_by_name_and_kafka_connect_alias():
    plugins = default_plugins()
    assert plugins.get("source", "generator").name == "generator"
    assert plugins.get("source", "org.apache.kafka.connect.file.FileStreamSourceConnector").name == "file"
    assert plugins.get("sink", "FileStreamSink").name == "file"
    assert plugins.get("sink", "console").name == "console"


class NotAConnector:
    name = "stray"


class StrayPlugin:
    @hookimpl
    def smt_connectors(self):
        return [NotAConnector]


def test_a_connector_that_is_neither_source_nor_sink_is_refused_by_name():
    with pytest.raises(
        PluginError,
        match=r"connector <class '.*NotAConnector'> is neither a Source nor a Sink "
        r"\(see smt\.connector\)",
    ):
        load_plugins(entry_points=False, extra_plugins=[StrayPlugin()])


@pytest.mark.spark
def test_a_third_party_source_runs_by_name(spark, tmp_path):
    plugins = load_plugins(entry_points=False, extra_plugins=[ThirdPartyPlugin()])
    spec = PipelineSpec.from_properties(
        {"source": "countdown", "source.from": "4", "sink": "file", "sink.path": str(tmp_path / "out")}, plugins=plugins
    )
    run_pipeline(spec, spark=spark)
    lines = sorted(line for path in (tmp_path / "out").glob("part-*") for line in path.read_text().split())
    assert lines == ["1", "2", "3", "4"]
