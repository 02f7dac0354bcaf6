"""Whether a record's Connect schema fits the columns a table has: the schema-change rules of the table sink.

A :class:`SchemaFit` is built from the table's value columns (a Spark
``StructType``, or ``None`` before there is a table) and says, for one value
schema, why its records cannot be written there, or ``None``:

- the value is not a struct (only a struct's fields can be columns), or has
  a field no column can carry (:func:`connectors.table.typed_json.unwritable`);
- a field's type conflicts with its column's (a type narrowed or changed:
  ``field 'placed' is timestamp in one schema and int in another``);
- a field the table lacks, unless columns may be added
  (``schema.evolution=add_columns``);
- a NOT NULL column of the table the schema lacks.

Records share a few schemas, so each distinct schema is judged once
(:meth:`SchemaFit.problem` caches by schema).  The table sink asks before
the value converter encodes the records, so a record that does not fit
fails alone at TASK_PUT (:meth:`connectors.table.sink.TableSink.value_errors`),
and again as it writes, for tables created after the job started.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import types as T

from connectors.table.typed_json import unwritable
from connectors.table.types import TypeConflict, merged_type, spark_type
from smt.data import Type

__all__ = ["SchemaFit"]


class SchemaFit:
    """The table's value columns, and which record schemas fit them (see the module docstring)."""

    def __init__(self, columns: T.StructType | None, evolution_key: str, may_add: bool) -> None:
        self.columns = columns
        self.evolution_key = evolution_key
        self.may_add = may_add
        self._required = [f.name for f in columns.fields if not f.nullable] if columns is not None else []
        # What merged_type makes of the columns alone: as merged, every field nullable.
        self._as_merged = merged_type(columns, columns) if columns is not None else None
        self._problems: dict[Any, str | None] = {}

    def __reduce__(self):
        # The cache holds Connect schemas of one executor's records: each process starts its own.
        return (SchemaFit, (self.columns, self.evolution_key, self.may_add))

    def problem(self, schema: Any) -> str | None:
        """Why records with value schema ``schema`` cannot be written into the table, or ``None``."""
        try:
            return self._problems[schema]
        except KeyError:
            found = self._problems[schema] = self._judge(schema)
            return found

    def _judge(self, schema: Any) -> str | None:
        if schema.type is not Type.STRUCT:
            return f"the value's schema is {schema.type.value}, not a struct: only a struct's fields can be columns"
        return unwritable(schema) or self.type_problem(spark_type(schema))

    def type_problem(self, record_type: T.StructType) -> str | None:
        """Why values of the Spark type ``record_type`` cannot be written into the table, or ``None``."""
        if self.columns is None:
            return None
        try:
            merged = merged_type(self.columns, record_type)
        except TypeConflict as exc:
            return f"{exc}; the table's type stays"
        added = [f.name for f in merged.fields if f.name not in self.columns.names]
        if added and not self.may_add:
            return f"field '{added[0]}' is not a column of the table; set {self.evolution_key}=add_columns to add it"
        if merged != self._as_merged and not added and not self.may_add:
            return f"a nested field is not a column of the table; set {self.evolution_key}=add_columns to add it"
        lacking = [name for name in self._required if name not in record_type.names]
        if lacking:
            return f"field '{lacking[0]}' is a NOT NULL column of the table, and the record's schema lacks it"
        return None
