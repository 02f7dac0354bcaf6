"""Spark columns as Kafka Connect data: the table source's type mapping, the inverse of :mod:`connectors.table.types`.

=================================  ==========================================
Spark type                         Connect schema
=================================  ==========================================
byte, short, int, long             INT8, INT16, INT32, INT64
float, double                      FLOAT32, FLOAT64
boolean                            BOOLEAN
string (char, varchar)             STRING
binary                             BYTES
decimal(precision, scale)          ``Decimal`` (scale), precision in the
                                   ``connect.decimal.precision`` parameter
date                               ``Date``
timestamp, timestamp_ntz           ``Timestamp`` (a timestamp_ntz read as UTC)
array<element>                     ARRAY
map<key, value>                    MAP
struct<...>                        STRUCT (nested); the row is the top level
=================================  ==========================================

A nullable column is an optional field, a ``NOT NULL`` one a required
field.  Structs have no schema name (a table does not keep one).  The table
sink writes a Connect ``Time`` as an int column, which reads back as INT32.
Any other Spark type (intervals, variant, time) is refused, naming the column.

:class:`ConnectValues` builds the Connect values of a whole Arrow batch:
one compiled function per column, run over the column's Python values.
"""

from __future__ import annotations

from typing import Any, Callable

import pyarrow as pa
from pyspark.sql import types as T

from connectors.table.types import PRECISION_PARAMETER
from smt.data import Date, Decimal, Schema, SchemaBuilder, Struct, Timestamp, Type
from smt.errors import DataError

__all__ = ["ConnectValues", "UnsupportedColumn", "connect_schema"]

_PRIMITIVES: dict[type, Callable[[], SchemaBuilder]] = {
    T.ByteType: SchemaBuilder.int8,
    T.ShortType: SchemaBuilder.int16,
    T.IntegerType: SchemaBuilder.int32,
    T.LongType: SchemaBuilder.int64,
    T.FloatType: SchemaBuilder.float32,
    T.DoubleType: SchemaBuilder.float64,
    T.BooleanType: SchemaBuilder.boolean,
    T.StringType: SchemaBuilder.string,
    T.CharType: SchemaBuilder.string,
    T.VarcharType: SchemaBuilder.string,
    T.BinaryType: SchemaBuilder.bytes_,
    T.DateType: Date.builder,
    T.TimestampType: Timestamp.builder,
    T.TimestampNTZType: Timestamp.builder,
}


class UnsupportedColumn(DataError):
    """A column's Spark type has no Connect schema; the message names the column and the type."""


def connect_schema(data_type: T.DataType, nullable: bool = True, path: str = "") -> Schema:
    """The Connect schema of values of ``data_type`` (see the table above).

    Raises :class:`UnsupportedColumn` naming the column (``path``) when a
    type has no Connect schema.
    """
    return _builder(data_type, path).optional().build() if nullable else _builder(data_type, path).build()


def _builder(data_type: T.DataType, path: str) -> SchemaBuilder:
    make = _PRIMITIVES.get(type(data_type))
    if make is not None:
        return make()
    if isinstance(data_type, T.DecimalType):
        return Decimal.builder(data_type.scale).parameter(PRECISION_PARAMETER, str(data_type.precision))
    if isinstance(data_type, T.ArrayType):
        return SchemaBuilder.array(connect_schema(data_type.elementType, data_type.containsNull, f"{path}[]"))
    if isinstance(data_type, T.MapType):
        return SchemaBuilder.map(
            connect_schema(data_type.keyType, False, f"{path}{{key}}"),
            connect_schema(data_type.valueType, data_type.valueContainsNull, f"{path}{{value}}"),
        )
    if isinstance(data_type, T.StructType):
        builder = SchemaBuilder.struct()
        for field in data_type.fields:
            builder.field(field.name, connect_schema(field.dataType, field.nullable, _child(path, field.name)))
        return builder
    raise UnsupportedColumn(f"column '{path}' is {data_type.simpleString()}, which has no Kafka Connect type")


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


Build = Callable[[Any], Any]


def _identity(value: Any) -> Any:
    return value


def _value_builder(schema: Schema) -> Build | None:
    """The function that turns one Arrow Python value of ``schema`` into its Connect value, ``None`` if it is one.

    Arrow already gives ints, floats, str, bytes, ``Decimal``, ``date`` and
    ``datetime``; only containers differ: a map is a list of pairs, a struct a dict.
    """
    if schema.type is Type.ARRAY:
        element = _value_builder(schema.value_schema)
        if element is None:
            return None
        return lambda items: None if items is None else [element(v) for v in items]
    if schema.type is Type.MAP:
        key = _value_builder(schema.key_schema) or _identity
        value = _value_builder(schema.value_schema) or _identity
        return lambda pairs: None if pairs is None else {key(k): value(v) for k, v in pairs}
    if schema.type is Type.STRUCT:
        fields = [(f.name, _value_builder(f.schema) or _identity) for f in schema.fields]

        def struct(row: Any) -> Any:
            if row is None:
                return None
            return Struct.from_values(schema, [build(row[name]) for name, build in fields], validate=False)

        return struct
    return None


class ConnectValues:
    """The rows of Arrow batches with the columns ``columns`` as Connect values of :attr:`schema` (a ``Struct`` each).

    Compiled once per table; pickles as its columns, compiled again on the executor.
    """

    def __init__(self, columns: T.StructType) -> None:
        self.columns = columns
        self.schema = connect_schema(columns, nullable=False)
        self._fields = [(f.name, _value_builder(f.schema)) for f in self.schema.fields]

    def __reduce__(self):
        return (ConnectValues, (self.columns,))

    def values(self, batch: pa.RecordBatch) -> list[Struct]:
        """One ``Struct`` per row of ``batch`` (its columns by name; others are ignored)."""
        columns = []
        for name, build in self._fields:
            column = batch.column(name).to_pylist()
            columns.append(column if build is None else [build(v) for v in column])
        schema = self.schema
        if not columns:
            return [Struct(schema) for _ in range(batch.num_rows)]
        return [Struct.from_values(schema, list(row), validate=False) for row in zip(*columns)]
