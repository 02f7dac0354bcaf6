"""Connect values as Java sees them: their class, and their ``toString``.

Kafka's converters name the class of a value they cannot take ("Failed to
serialize to long (was class java.lang.Integer)").  Here a value's schema, when
there is one, says which Java class it would be (an INT32 is an ``Integer``);
without one, its Python type does, as Kafka's schemaless values come from
JSON (whole numbers are ``Long``, others ``Double``, objects ``HashMap``).
StringConverter writes ``value.toString()``: :func:`java_to_string`.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal as _decimal
from typing import Any

from smt.data import Date, Decimal, Float32, Schema, Struct, Time, Timestamp, Type, format_float
from smt.data.float32 import format_double
from smt.data.logical import millis_to_datetime, temporal_millis

__all__ = ["java_class_of", "java_to_string"]

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


def java_to_string(value: Any) -> str:
    """``String.valueOf(value)`` of the Java object ``value`` would be in Kafka.

    Lists print as ``[a, b]``, maps as ``{k=v, k2=v2}`` (in their order here:
    Java's HashMap prints in hash order), structs as ``Struct{a=1,b=x}``
    without their null fields, dates as ``java.util.Date`` does in UTC.  Bytes,
    whose Java ``toString`` is the array's identity (``[B@1b6d3586``), print
    as base64.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Float32):
        return format_float(value)
    if isinstance(value, float):
        return format_double(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(java_to_string, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{java_to_string(k)}={java_to_string(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Struct):
        fields = (f"{f.name}={java_to_string(value.get(f))}" for f in value.schema.fields if value.get(f) is not None)
        return "Struct{" + ",".join(fields) + "}"
    if isinstance(value, (_dt.date, _dt.time)):
        moment = millis_to_datetime(temporal_millis(value))
        return moment.strftime("%a %b %d %H:%M:%S UTC ") + str(moment.year)
    return str(value)
