"""Compiled stages: a converter, transform or sink that can run as Spark SQL columns, in the JVM.

The pipeline's compiled path (:mod:`smt.pipeline.compiled_plan`) keeps the
records of a simple pipeline out of Python: the value converter reads each
record into Spark columns, each transform rewrites those columns, and the
sink writes them.  Each plugin offers its compiled form through a hook that
either returns it or raises :class:`NotCompilable` saying why not; a plugin
without the hook has no compiled form.  A compiled form must give exactly
what the plugin gives in Python, record by record, or refuse the record:
:attr:`CompiledRead.exact` sends every record it cannot vouch for to the
Python path, where it is decoded, transformed and dead-lettered as always.

Hooks (all optional; a source's and a sink's are the roles
:class:`smt.connector_roles.CompiledSource` and
:class:`smt.connector_roles.CompiledInput`, resolved once with the plan):

- ``Source.compiled_problem()`` → why Spark's reading of the source
  (``Source.read``) is not the records its Python tasks read, or None;
- ``Converter.compiled_reader()`` → an object with
  ``schema_text(text)`` (a column: the schema text of each record) and
  ``read(text, schema_text, parsed_as)`` → :class:`CompiledRead`;
- ``Transform.compile_value(value)`` → a :class:`CompiledValue` (the value
  after the transform);
- ``Sink.compiled_problem(schema)`` → why values of this Connect schema
  cannot be written from columns (None: they can), and
  ``Sink.bind_compiled(rows)`` with :class:`CompiledRows`; and
  ``Sink.compiled_write_aborts_cleanly()`` → whether a failed write leaves
  the output as it was (the plan may then bet on every record first).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

__all__ = ["CompiledConverter", "CompiledRead", "CompiledRows", "CompiledTransform", "CompiledValue", "NotCompilable"]


class CompiledTransform(Protocol):
    """A transform with a compiled form (the planner checks for it once, :mod:`smt.pipeline.compiled_plan`)."""

    def compile_value(self, value: "CompiledValue", functions: Any) -> "CompiledValue":
        """The value after the transform, as columns; raises :class:`NotCompilable` saying why not."""
        ...


class CompiledConverter(Protocol):
    """A value converter with a compiled reader (the planner checks for it once)."""

    def compiled_reader(self, functions: Any) -> Any:
        """The reader (``schema_text``, ``read``: see the module's doc); raises :class:`NotCompilable`."""
        ...


class NotCompilable(Exception):
    """A stage has no compiled form for this pipeline or schema; the message says why."""


@dataclasses.dataclass(frozen=True)
class CompiledValue:
    """A record value as Spark columns: its Connect struct ``schema`` and one column per field, in order."""

    schema: Any
    columns: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class CompiledRead:
    """What a converter's compiled reader gives for one schema text.

    ``parsed``: the one expensive column (a parse), which the caller computes
    once per record under the name the reader was given; the others refer to
    it by that name.  ``value``: the decoded value's columns.  ``exact``: a boolean column,
    true only where the record has this schema and its columns equal what the
    converter decodes in Python.  ``same_schema``: a cheap boolean column,
    true only where the converter, in Python, decodes the record with this
    very schema or fails it (so its written type is known without running it).
    """

    parsed: Any
    value: CompiledValue
    exact: Any
    same_schema: Any


@dataclasses.dataclass(frozen=True)
class CompiledRows:
    """The records of a write that took the compiled path, handed to the sink with the others.

    ``rows``: a DataFrame of the value columns.  ``schemas``: their Connect
    schemas (the value schemas after the chain).  ``python_types``: a
    DataFrame of the Python path's output records whose value types are not
    among ``schemas`` as far as the plan can tell (the sink reads their types
    from it instead of from every record), or None when there are none.
    """

    rows: Any
    schemas: tuple
    python_types: Any

    def __reduce__(self):
        # The driver's DataFrames: a sink holding them is pickled to the executors without them.
        return (_nothing, ())


def _nothing() -> None:
    return None
