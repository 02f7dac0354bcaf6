"""File sources and sinks through Spark's file data sources."""

from connectors.file.formats import FORMATS, FileFormat
from connectors.file.sink import FileSink
from connectors.file.source import FileSource

__all__ = ["FORMATS", "FileFormat", "FileSink", "FileSource"]
