"""Kafka Connect's ``Values`` helpers: infer a schema, parse and print values as strings.

:func:`parse_string` follows ``Values.parseString``: ``true``/``false`` are
booleans, integral numbers get the smallest integer type, other numbers
FLOAT32 (FLOAT64 past float range), ``[...]`` and ``{...}`` literals arrays and
maps of parsed (quoted-string, number, boolean, temporal) elements, ISO-8601
``yyyy-MM-dd``, ``HH:mm:ss.SSSZ`` and ``yyyy-MM-ddTHH:mm:ss.SSSZ`` the Date,
Time and Timestamp logical types, and anything else a STRING.  The
SimpleHeaderConverter and the InsertHeader transform use it.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal as _decimal
from typing import Any

from smt.data._string_parser import parse_text
from smt.data.builder import SchemaBuilder
from smt.data.float32 import Float32, format_double, format_float
from smt.data.logical import EPOCH, MILLIS_PER_DAY, Date, Decimal, Time, Timestamp, temporal_millis
from smt.data.schema import Schema, Type
from smt.data.struct import Struct
from smt.errors import DataError

__all__ = ["convert_to_string", "infer_schema", "parse_string"]


def infer_schema(value: Any) -> Schema | None:
    """The schema Kafka's ``Values.inferSchema`` gives ``value``, or None when it cannot tell.

    Python has one ``int`` and one ``float``: ints infer INT64 and floats FLOAT64.
    Lists and dicts infer when every non-null element has the same type;
    empty ones do not.
    """
    if isinstance(value, str):
        return Schema.STRING_SCHEMA
    if isinstance(value, bool):
        return Schema.BOOLEAN_SCHEMA
    if isinstance(value, int):
        return Schema.INT64_SCHEMA
    if isinstance(value, float):
        return Schema.FLOAT64_SCHEMA
    if isinstance(value, (bytes, bytearray, memoryview)):
        return Schema.BYTES_SCHEMA
    if isinstance(value, _decimal.Decimal):
        exponent = value.as_tuple().exponent
        return Decimal.schema(-exponent) if isinstance(exponent, int) else None
    if isinstance(value, _dt.datetime):
        return Timestamp.SCHEMA
    if isinstance(value, _dt.date):
        return Date.SCHEMA
    if isinstance(value, _dt.time):
        return Time.SCHEMA
    if isinstance(value, (list, tuple)):
        element = _common_schema(value)
        return SchemaBuilder.array(element).build() if element is not None else None
    if isinstance(value, dict):
        key = _common_schema(value.keys())
        item = _common_schema(value.values())
        return SchemaBuilder.map(key, item).build() if key is not None and item is not None else None
    if isinstance(value, Struct):
        return value.schema
    return None


def _common_schema(values: Any) -> Schema | None:
    # Kafka's SchemaDetector: one type for every non-null value; a null makes it optional.
    known: Schema | None = None
    optional = False
    for value in values:
        if value is None:
            optional = True
            continue
        schema = infer_schema(value)
        if schema is None or (known is not None and schema.type is not known.type):
            return None
        known = known or schema
    if known is None:
        return None
    if optional and not known.optional:
        builder = SchemaBuilder.of_type(known.type)
        return builder.optional().build() if known.type.is_primitive else known
    return known


def parse_string(text: str | None) -> tuple[Schema | None, Any]:
    """``(schema, value)`` inferred from ``text`` (Kafka's ``Values.parseString``).

    ``None`` and the literal ``null`` give ``(None, None)``; the empty string
    is a STRING.  Never raises for well-formed text: what cannot be parsed as
    anything else is a STRING.
    """
    if text is None:
        return None, None
    if text == "":
        return Schema.STRING_SCHEMA, text
    return parse_text(text)


def convert_to_string(schema: Schema | None, value: Any) -> str | None:
    """The string form Kafka's ``Values.convertToString`` writes for ``value``.

    Bytes are base64, strings inside arrays and maps are quoted and escaped,
    structs print as maps of their fields, and dates, times and timestamps as
    ISO-8601 in UTC.
    """
    if value is None:
        return None
    parts: list[str] = []
    _append(parts, value, embedded=False, schema=schema)
    return "".join(parts)


def _append(out: list[str], value: Any, embedded: bool, schema: Schema | None = None) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, float):
        float32 = isinstance(value, Float32) or (schema is not None and schema.type is Type.FLOAT32)
        out.append(format_float(value) if float32 else format_double(value))
    elif isinstance(value, (int, _decimal.Decimal)):
        out.append(str(value))
    elif isinstance(value, str):
        out.append(f'"{_escape(value)}"' if embedded else value)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        encoded = base64.b64encode(bytes(value)).decode("ascii")
        out.append(f'"{encoded}"' if embedded else encoded)
    elif isinstance(value, (list, tuple)):
        out.append("[")
        _append_all(out, value, _part_schema(schema, Type.ARRAY, "value_schema"))
        out.append("]")
    elif isinstance(value, dict):
        key_schema = _part_schema(schema, Type.MAP, "key_schema")
        value_schema = _part_schema(schema, Type.MAP, "value_schema")
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                out.append(",")
            _append(out, key, True, key_schema)
            out.append(":")
            _append(out, item, True, value_schema)
        out.append("}")
    elif isinstance(value, Struct):
        out.append("{")
        for i, field in enumerate(value.schema.fields):
            if i:
                out.append(",")
            _append(out, field.name, True)
            out.append(":")
            _append(out, value.get(field), True, field.schema)
        out.append("}")
    elif isinstance(value, (_dt.date, _dt.time)):
        out.append(format_java_date(value))
    else:
        raise DataError(f"Failed to serialize unexpected value type {type(value).__name__}: {value!r}")


def _append_all(out: list[str], values: Any, schema: Schema | None = None) -> None:
    for i, value in enumerate(values):
        if i:
            out.append(",")
        _append(out, value, True, schema)


def _part_schema(schema: Schema | None, type_: Type, part: str) -> Schema | None:
    """The element (``value_schema``) or key schema of an array or map schema, if there is one."""
    if schema is None or schema.type is not type_:
        return None
    return getattr(schema, part)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def format_java_date(value: _dt.date | _dt.time) -> str:
    """Kafka's ``Values.dateFormatFor``, in UTC: by the instant, not the logical type.

    Under a day after the epoch (or before it) a time ``HH:mm:ss.SSSZ``, whole
    days a date ``yyyy-MM-dd``, else a timestamp ``yyyy-MM-ddTHH:mm:ss.SSSZ``.
    """
    millis = temporal_millis(value)
    moment = EPOCH + _dt.timedelta(milliseconds=millis)
    fraction = f"{moment.microsecond // 1000:03d}"
    if millis < MILLIS_PER_DAY:
        return moment.strftime("%H:%M:%S.") + fraction + "Z"
    if millis % MILLIS_PER_DAY == 0:
        return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}" + moment.strftime("T%H:%M:%S.") + fraction + "Z"
