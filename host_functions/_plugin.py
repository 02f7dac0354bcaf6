"""Registers the WebAssembly transform."""

from smt.plugins import hookimpl


@hookimpl
def smt_transforms():
    return []
