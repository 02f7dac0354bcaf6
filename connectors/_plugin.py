"""Registers the built-in connectors."""

from connectors.file import FileSink, FileSource
from smt.plugins import hookimpl


@hookimpl
def smt_connectors():
    return [FileSource, FileSink]
