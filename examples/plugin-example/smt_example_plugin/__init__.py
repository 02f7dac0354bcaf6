"""An example spark-smt plugin: one transform, one predicate and one sink."""

from smt_example_plugin.predicates import ValueContains
from smt_example_plugin.sinks import ValuesFileSink
from smt_example_plugin.transforms import ReverseValue

__all__ = ["ReverseValue", "ValueContains", "ValuesFileSink"]
