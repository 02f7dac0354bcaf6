"""Registers the built-in connectors."""

from connectors.file import FileSink, FileSource
from connectors.kafka import KafkaSink, KafkaSource
from smt.plugins import hookimpl


@hookimpl
def smt_connectors():
    return [FileSource, FileSink, KafkaSource, KafkaSink]
