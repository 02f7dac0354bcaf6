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
fails alone at TASK_PUT (:meth:`connectors.table.sink.TableSink.value_errors`).

:class:`TableFits` holds the columns of every table the sink writes (one, or
one per topic with ``${topic}``) as the driver knows them before a batch:
looked up when the job starts, then learnt from each write (a table a
streaming micro-batch created or widened).  The processor that runs the
records was pickled once, when the job was planned, so the driver ships the
columns to it per batch as a Spark local property
(:meth:`TableFits.ship`, read on the executors with
``TaskContext.getLocalProperty``): each micro-batch judges its records
against the tables as the previous one left them.  A Spark Connect session
has no local properties: its executors keep the columns as the job started.
What the driver cannot know before the records are read (a table created by
this very batch, two of its records disagreeing; a routed table another
writer created during a streaming run) is checked again as the batch is
written, failing the write naming the table and field.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Callable

from pyspark import TaskContext
from pyspark.sql import types as T

from connectors.table.typed_json import unwritable
from connectors.table.types import TypeConflict, merged_type, spark_type
from smt.data import Type
from smt.sessions import is_connect

__all__ = ["SchemaFit", "TableFits"]

#: The local property that carries the tables' columns to the executors (see TableFits.ship).
_PROPERTY = "smt.table.columns"


class SchemaFit:
    """The table's value columns, and which record schemas fit them (see the module docstring)."""

    def __init__(
        self, columns: T.StructType | None, evolution_key: str, may_add: bool, widens_bytes: bool = False
    ) -> None:
        self.columns = columns
        self.evolution_key = evolution_key
        self.may_add = may_add
        #: A database table (JDBC) keeps a byte field as smallint, read back as a short column.
        self.widens_bytes = widens_bytes
        self._required = [f.name for f in columns.fields if not f.nullable] if columns is not None else []
        # What merged_type makes of the columns alone: as merged, every field nullable.
        self._as_merged = merged_type(columns, columns) if columns is not None else None
        self._problems: dict[Any, str | None] = {}
        self._decimals: dict[Any, tuple[tuple[str, int, int], ...]] = {}

    def __reduce__(self):
        # The cache holds Connect schemas of one executor's records: each process starts its own.
        return (SchemaFit, (self.columns, self.evolution_key, self.may_add, self.widens_bytes))

    def problem(self, schema: Any) -> str | None:
        """Why records with value schema ``schema`` cannot be written into the table, or ``None``."""
        try:
            return self._problems[schema]
        except KeyError:
            found = self._problems[schema] = self._judge(schema)
            return found

    def value_problem(self, schema: Any, value: Any) -> str | None:
        """Why one value a fitting ``schema`` types cannot be written, or ``None``: a decimal with more
        digits than its column's precision leaves for them (Spark would fail the whole write on it)."""
        decimals = self._decimals.get(schema)
        if decimals is None:
            decimals = self._decimals[schema] = _decimal_fields(spark_type(schema))
        for name, precision, scale in decimals:
            number = value.get(name) if value is not None else None
            if number is not None and number != 0 and number.adjusted() >= precision - scale:
                return (
                    f"field '{name}': {number} has more digits than DECIMAL({precision},{scale}) holds "
                    f"(at most {precision - scale} before the point)"
                )
        return None

    def _judge(self, schema: Any) -> str | None:
        if schema.type is not Type.STRUCT:
            return f"the value's schema is {schema.type.value}, not a struct: only a struct's fields can be columns"
        return unwritable(schema) or self.type_problem(spark_type(schema))

    def type_problem(self, record_type: T.StructType) -> str | None:
        """Why values of the Spark type ``record_type`` cannot be written into the table, or ``None``."""
        if self.columns is None:
            return None
        if self.widens_bytes:
            record_type = _bytes_as_shorts(record_type)
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


class TableFits:
    """The columns of the tables one sink writes, by where each is (``TableTarget.where``), and which
    record schemas fit them (see the module docstring).

    On the driver, :meth:`learn` records a table's value columns (``None``: no table) and
    :meth:`ship` hands what is known to the batch about to run; on the executors, :meth:`batch`
    answers, per batch, for each table with what was shipped.
    """

    def __init__(self, evolution_key: str, may_add: bool, widens_bytes: bool = False) -> None:
        self.evolution_key = evolution_key
        self.may_add = may_add
        self.widens_bytes = widens_bytes
        #: Tells this sink's shipments from another's left on the driver thread by an earlier run.
        self.token = uuid.uuid4().hex
        self.known: dict[str, T.StructType] = {}
        #: What the batch running now was shipped (JSON), and on the executors its fits.
        self._shipped = "{}"
        self._fits: tuple[str, dict[str, SchemaFit]] = ("", {})

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_fits": ("", {})}

    # --- on the driver ---------------------------------------------------------------

    def learn(self, where: str, columns: T.StructType | None) -> None:
        """The table at ``where`` has the value columns ``columns`` now (``None``: it does not exist)."""
        if columns is None:
            self.known.pop(where, None)
        else:
            self.known[where] = columns

    def start(self) -> None:
        """What is known as the job starts: it travels to the executors with the sink (pickled)."""
        self._shipped = self._known_json()

    def ship(self, spark: Any) -> None:
        """Hand what is known to the Spark jobs this thread starts next (the batch about to run).

        A Spark Connect session has no local properties: its batches keep what :meth:`start` saw.
        """
        if is_connect(spark):
            return
        self._shipped = self._known_json()
        spark.sparkContext.setLocalProperty(_PROPERTY, f"{self.token} {self._shipped}")

    def problem(self, where: str, schema: Any) -> str | None:
        """Why records of ``schema`` cannot go into the table at ``where`` as the driver knows it, or None."""
        return SchemaFit(self.known.get(where), self.evolution_key, self.may_add, self.widens_bytes).problem(schema)

    def _known_json(self) -> str:
        return json.dumps({where: columns.jsonValue() for where, columns in self.known.items()})

    def shipped(self, where: str) -> T.StructType | None:
        """The columns of ``where`` the running batch's records were judged against (driver side)."""
        columns = json.loads(self._shipped).get(where)
        return T.StructType.fromJson(columns) if columns is not None else None

    # --- on the executors ------------------------------------------------------------

    def batch(self) -> Callable[[str], SchemaFit]:
        """For the batch this task runs: what fits the table at a ``where``, as the driver shipped it."""
        text = self._shipped
        context = TaskContext.get()
        found = context.getLocalProperty(_PROPERTY) if context is not None else None
        if found is not None and found.startswith(f"{self.token} "):
            text = found[len(self.token) + 1 :]
        if self._fits[0] != text:
            tables = {w: T.StructType.fromJson(c) for w, c in json.loads(text).items()}
            fits = {w: SchemaFit(c, self.evolution_key, self.may_add, self.widens_bytes) for w, c in tables.items()}
            self._fits = (text, fits)
        fits = self._fits[1]

        def fit(where: str) -> SchemaFit:
            if where not in fits:
                fits[where] = SchemaFit(None, self.evolution_key, self.may_add, self.widens_bytes)
            return fits[where]

        return fit


def _bytes_as_shorts(data_type: T.DataType) -> T.DataType:
    if isinstance(data_type, T.ByteType):
        return T.ShortType()
    if isinstance(data_type, T.StructType):
        return T.StructType([T.StructField(f.name, _bytes_as_shorts(f.dataType), f.nullable) for f in data_type.fields])
    if isinstance(data_type, T.ArrayType):
        return T.ArrayType(_bytes_as_shorts(data_type.elementType), data_type.containsNull)
    if isinstance(data_type, T.MapType):
        return T.MapType(
            _bytes_as_shorts(data_type.keyType), _bytes_as_shorts(data_type.valueType), data_type.valueContainsNull
        )
    return data_type


def _decimal_fields(record_type: T.StructType) -> tuple[tuple[str, int, int], ...]:
    """The top-level decimal columns of ``record_type``: (name, precision, scale)."""
    return tuple(
        (f.name, f.dataType.precision, f.dataType.scale)
        for f in record_type.fields
        if isinstance(f.dataType, T.DecimalType)
    )
