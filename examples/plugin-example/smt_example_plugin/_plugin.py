"""The entry point spark-smt loads: pluggy hooks returning this package's classes."""

from smt.plugins import hookimpl
from smt_example_plugin.predicates import ValueContains
from smt_example_plugin.sinks import ValuesFileSink
from smt_example_plugin.transforms import ReverseValue


@hookimpl
def smt_transforms():
    return [ReverseValue]


@hookimpl
def smt_predicates():
    return [ValueContains]


@hookimpl
def smt_connectors():
    return [ValuesFileSink]
