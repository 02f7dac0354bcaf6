"""File sources and sinks: text, jsonl, parquet and avro; batch and streaming (see connectors/README.md)."""

from connectors.file._micro_batch import QueryCommits, query_name, write_micro_batch
from connectors.file.formats import FORMATS, FileFormat, ReadOptions
from connectors.file.sink import FileSink
from connectors.file.source import FileSource

__all__ = [
    "FORMATS",
    "FileFormat",
    "FileSink",
    "FileSource",
    "QueryCommits",
    "ReadOptions",
    "query_name",
    "write_micro_batch",
]
