"""The Java class a Connect value would have in Kafka, for error messages that match Kafka's.

Kafka's converters name the class of a value they cannot take ("Failed to
serialize to long (was class java.lang.Integer)").  Here a value's schema, when
there is one, says which Java class it would be (an INT32 is an ``Integer``);
without one, its Python type does, as Kafka's schemaless values come from
JSON (whole numbers are ``Long``, others ``Double``, objects ``HashMap``).
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from typing import Any

from smt.data import Date, Decimal, Float32, Schema, Struct, Time, Timestamp, Type

__all__ = ["java_class_of"]

_BY_SCHEMA_TYPE = {
    Type.INT8: "java.lang.Byte",
    Type.INT16: "java.lang.Short",
    Type.INT32: "java.lang.Integer",
    Type.INT64: "java.lang.Long",
    Type.FLOAT32: "java.lang.Float",
    Type.FLOAT64: "java.lang.Double",
    Type.BOOLEAN: "java.lang.Boolean",
    Type.STRING: "java.lang.String",
    Type.BYTES: "[B",
    Type.ARRAY: "java.util.ArrayList",
    Type.MAP: "java.util.HashMap",
    Type.STRUCT: "org.apache.kafka.connect.data.Struct",
}
_LOGICAL = {
    Decimal.LOGICAL_NAME: "java.math.BigDecimal",
    Date.LOGICAL_NAME: "java.util.Date",
    Time.LOGICAL_NAME: "java.util.Date",
    Timestamp.LOGICAL_NAME: "java.util.Date",
}


def java_class_of(schema: Schema | None, value: Any) -> str:
    """``class java.lang.Long``: how ``value.getClass()`` prints in Kafka's messages."""
    return f"class {_class_name(schema, value)}"


def _class_name(schema: Schema | None, value: Any) -> str:
    if schema is not None:
        return _LOGICAL.get(schema.name or "", _BY_SCHEMA_TYPE[schema.type])
    if isinstance(value, bool):
        return "java.lang.Boolean"
    if isinstance(value, int):
        return "java.lang.Long"
    if isinstance(value, Float32):
        return "java.lang.Float"
    if isinstance(value, float):
        return "java.lang.Double"
    if isinstance(value, str):
        return "java.lang.String"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "[B"
    if isinstance(value, (list, tuple)):
        return "java.util.ArrayList"
    if isinstance(value, dict):
        return "java.util.HashMap"
    if isinstance(value, Struct):
        return "org.apache.kafka.connect.data.Struct"
    if isinstance(value, _decimal.Decimal):
        return "java.math.BigDecimal"
    if isinstance(value, (_dt.date, _dt.time)):
        return "java.util.Date"
    return type(value).__name__
