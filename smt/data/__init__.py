"""The Kafka Connect data model: schemas, structs, logical types and value helpers.

``Schema``/``SchemaBuilder``/``Field`` describe data, ``Struct`` holds a
structured value, ``validate_value`` checks a value against its schema (Kafka's
``ConnectSchema.validateValue``), ``Decimal``/``Date``/``Time``/``Timestamp``
are the logical types, and ``infer_schema``/``parse_string``/``convert_to_string`` mirror
Kafka's ``Values``.  Errors are :class:`smt.errors.DataError`.
"""

from smt.data.builder import SchemaBuilder, SchemaBuilderError, copy_schema_basics
from smt.data.float32 import Float32, format_float
from smt.data.logical import Date, Decimal, Time, Timestamp, from_logical, is_logical, to_logical
from smt.data.schema import Field, Schema, Type
from smt.data.struct import Struct, validate_value
from smt.data.values import convert_to_string, infer_schema, parse_string

__all__ = [
    "Date",
    "Decimal",
    "Field",
    "Float32",
    "Schema",
    "SchemaBuilder",
    "SchemaBuilderError",
    "Struct",
    "Time",
    "Timestamp",
    "Type",
    "convert_to_string",
    "copy_schema_basics",
    "format_float",
    "from_logical",
    "infer_schema",
    "is_logical",
    "parse_string",
    "to_logical",
    "validate_value",
]
