"""Registers the built-in transforms."""

from smt.plugins import hookimpl


@hookimpl
def smt_transforms():
    return []
