"""Registers the built-in connectors."""

from connectors.console import ConsoleSink
from connectors.file import FileSink, FileSource
from connectors.generator import GeneratorSource
from connectors.kafka import KafkaSink, KafkaSource
from connectors.noop import NoopSink
from connectors.table import TableSink, TableSource
from smt.plugins import hookimpl


@hookimpl
def smt_connectors():
    return [
        FileSource,
        FileSink,
        GeneratorSource,
        ConsoleSink,
        KafkaSource,
        KafkaSink,
        NoopSink,
        TableSink,
        TableSource,
    ]
