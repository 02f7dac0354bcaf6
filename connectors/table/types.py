"""Kafka Connect schemas as Spark column types: the type mapping of the table sink.

=========================================  =====================================
Connect schema                             Spark type
=========================================  =====================================
INT8, INT16, INT32, INT64                  byte, short, int, long
FLOAT32, FLOAT64                           float, double
BOOLEAN                                    boolean
STRING                                     string
BYTES                                      binary
``Decimal`` (scale, precision parameter)   decimal(precision, scale); precision
                                           ``connect.decimal.precision``, else 38
``Date``                                   date
``Time``                                   int (milliseconds since midnight, as
                                           Connect encodes it: Spark 4.0 has no
                                           time type)
``Timestamp``                              timestamp (UTC)
ARRAY                                      array<element>
MAP                                        map<key, value>
STRUCT                                     struct<...> (nested); the value's
                                           top-level fields are the columns
=========================================  =====================================

Every column is nullable in Spark: a required Connect field is non-null
because its converter checked it, and a table written with NOT NULL columns
could not take a later optional field.  :func:`merged_type` unites the types
of records with different schemas (a field added later).
"""

from __future__ import annotations

from pyspark.sql import types as T

from smt.data import Decimal, Schema, Type
from smt.data.logical import Date, Time, Timestamp
from smt.errors import DataError

__all__ = ["DEFAULT_DECIMAL_PRECISION", "PRECISION_PARAMETER", "TypeConflict", "merged_type", "spark_type"]

#: Precision of a Connect ``Decimal`` whose schema does not give one (Spark's largest).
DEFAULT_DECIMAL_PRECISION = 38

#: The parameter the Avro and JSON Schema converters give a decimal's precision in.
PRECISION_PARAMETER = "connect.decimal.precision"

_PRIMITIVES = {
    Type.INT8: T.ByteType(),
    Type.INT16: T.ShortType(),
    Type.INT32: T.IntegerType(),
    Type.INT64: T.LongType(),
    Type.FLOAT32: T.FloatType(),
    Type.FLOAT64: T.DoubleType(),
    Type.BOOLEAN: T.BooleanType(),
    Type.STRING: T.StringType(),
    Type.BYTES: T.BinaryType(),
}


class TypeConflict(DataError):
    """Two schemas give one column types Spark cannot hold in one column; the message names it."""


def spark_type(schema: Schema) -> T.DataType:
    """The Spark type of values of the Connect ``schema`` (see the table above)."""
    if schema.name == Decimal.LOGICAL_NAME:
        precision = int(schema.parameters.get(PRECISION_PARAMETER, DEFAULT_DECIMAL_PRECISION))
        scale = Decimal.scale(schema)
        return T.DecimalType(max(precision, scale), scale)
    if schema.name == Date.LOGICAL_NAME:
        return T.DateType()
    if schema.name == Timestamp.LOGICAL_NAME:
        return T.TimestampType()
    if schema.name == Time.LOGICAL_NAME:
        return T.IntegerType()
    if schema.type is Type.ARRAY:
        return T.ArrayType(spark_type(schema.value_schema), True)
    if schema.type is Type.MAP:
        return T.MapType(spark_type(schema.key_schema), spark_type(schema.value_schema), True)
    if schema.type is Type.STRUCT:
        return T.StructType([T.StructField(f.name, spark_type(f.schema), True) for f in schema.fields])
    return _PRIMITIVES[schema.type]


def merged_type(old: T.DataType, new: T.DataType, path: str = "") -> T.DataType:
    """One type holding values of both: struct fields are united (``old``'s order first).

    Raises :class:`TypeConflict` naming the field when a field's types differ
    otherwise (a type narrowed or changed).
    """
    if isinstance(old, T.StructType) and isinstance(new, T.StructType):
        fields = {f.name: f for f in old.fields}
        for field in new.fields:
            here = f"{path}.{field.name}" if path else field.name
            if field.name in fields:
                kept = fields[field.name]
                fields[field.name] = T.StructField(field.name, merged_type(kept.dataType, field.dataType, here), True)
            else:
                fields[field.name] = T.StructField(field.name, field.dataType, True)
        return T.StructType(list(fields.values()))
    if isinstance(old, T.ArrayType) and isinstance(new, T.ArrayType):
        return T.ArrayType(merged_type(old.elementType, new.elementType, f"{path}[]"), True)
    if isinstance(old, T.MapType) and isinstance(new, T.MapType):
        return T.MapType(
            merged_type(old.keyType, new.keyType, f"{path}{{key}}"),
            merged_type(old.valueType, new.valueType, f"{path}{{value}}"),
            True,
        )
    if old == new:
        return old
    raise TypeConflict(f"field '{path}' is {old.simpleString()} in one schema and {new.simpleString()} in another")
