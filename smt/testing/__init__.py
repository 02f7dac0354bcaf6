"""Test helpers for users' transforms and guests (also a pytest plugin: ``smt.testing.plugin``)."""

from smt.testing.outputs import output_lines
from smt.testing.records import make_record

__all__ = ["make_record", "output_lines"]
