"""Registers the built-in predicates."""

from smt.plugins import hookimpl


@hookimpl
def smt_predicates():
    return []
