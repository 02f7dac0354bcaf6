"""Registers the built-in connectors."""

from smt.plugins import hookimpl


@hookimpl
def smt_connectors():
    return []
