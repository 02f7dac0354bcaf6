"""Which Kafka row fields cross between Spark and Python.

Moving a column from the JVM into Python and back costs about as much as a
simple transform, so the pipeline moves only what is used: the fields the
sink writes, the fields the transforms and predicates read, and the record
coordinates that error messages name.  Whoever does not say what it uses
(``None``) gets everything, and a dead-letter queue needs the whole record.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from smt.row_layout import FIELD_OF_ATTRIBUTE, KAFKA_ROW_FIELDS

__all__ = ["FieldPlan", "plan_fields"]

#: Coordinates named in error messages and logs.
_COORDINATES = frozenset({"topic", "partition", "offset"})


@dataclasses.dataclass(frozen=True)
class FieldPlan:
    """Fields into Python (``inputs``) and back out (``outputs``), in row layout order."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]

    @property
    def everything(self) -> bool:
        return self.inputs == KAFKA_ROW_FIELDS and self.outputs == KAFKA_ROW_FIELDS


def plan_fields(spec: Any) -> FieldPlan:
    """The :class:`FieldPlan` for a pipeline spec."""
    written = spec.sink.output_fields()
    if written is None or spec.policy.dead_letters:
        return FieldPlan(KAFKA_ROW_FIELDS, KAFKA_ROW_FIELDS)
    read = _fields_read(spec)
    if read is None:
        return FieldPlan(KAFKA_ROW_FIELDS, _ordered(written))
    if not spec.policy.tolerates_all or spec.policy.log_enable:
        read |= _COORDINATES
    return FieldPlan(_ordered(read | written), _ordered(written))


def _fields_read(spec: Any) -> set[str] | None:
    fields: set[str] = set()
    for stage in spec.chain.stages:
        for plugin in (stage.transform, stage.predicate):
            if plugin is None:
                continue
            declared = plugin.input_fields()
            if declared is None:
                return None
            fields |= {FIELD_OF_ATTRIBUTE.get(name, name) for name in declared}
    return fields


def _ordered(fields: set[str] | frozenset[str]) -> tuple[str, ...]:
    return tuple(name for name in KAFKA_ROW_FIELDS if name in fields)
