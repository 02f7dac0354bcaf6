"""An example spark-smt plugin: one transform and one predicate."""

from smt_example_plugin.predicates import ValueContains
from smt_example_plugin.transforms import ReverseValue

__all__ = ["ReverseValue", "ValueContains"]
