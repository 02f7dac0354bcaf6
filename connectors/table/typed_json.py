"""Record values as typed JSON lines: how the table sink carries values with a schema to Spark.

The table sink takes the values as the chain left them, before the value
converter would encode them (:meth:`connectors.table.sink.TableSink.encode_values`),
and writes each as one line of UTF-8 text::

    <the value's Spark type as JSON>\\n<the value as JSON>

so that the write needs no Python: Spark reads the distinct types from the
first lines (the table's columns), and the values with ``from_json`` in the
JVM, as a hand-written job would (:func:`table_rows`).

JSON has no timestamp, date, decimal or non-string map key, so the payload
spells them as text that Spark's ``CAST`` reads exactly: a timestamp in
ISO-8601 with its offset, a date ``YYYY-MM-DD``, a decimal in plain notation,
a map key as its text; bytes are base64, which ``from_json`` decodes.  A
Connect ``Time`` is milliseconds since midnight, as in
:mod:`connectors.table.types`.  ``from_json`` reads the payload with those
fields as strings (:func:`parse_type`), then one cast gives the columns.
A map whose keys are bytes has no such spelling, and is refused
(:func:`unwritable`).
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
from typing import Any, Callable

import orjson
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from connectors.table.types import merged_type, spark_type
from smt.data import Decimal, Type
from smt.data.logical import EPOCH_DATE, Date, Time, Timestamp, temporal_millis

__all__ = ["TypeLines", "TypedJsonEncoder", "parse_type", "payloads", "table_rows", "type_text", "unwritable"]

_SEPARATOR = b"\n"
# ASCII: a lone surrogate a JSON source may hold stays a valid escape, never an encoding error.
_dumps = json.JSONEncoder(separators=(",", ":"), allow_nan=True).encode

Plain = Callable[[Any], Any]


class TypedJsonEncoder:
    """Encodes Connect values with their struct schemas as typed JSON lines; one plan per distinct schema."""

    def __init__(self) -> None:
        self._plans: dict[Any, tuple[bytes, Plain]] = {}

    def __reduce__(self):
        # The plans hold one process's schemas: each executor compiles its own.
        return (TypedJsonEncoder, ())

    def encode(self, schemas: list, values: list) -> list[bytes | None]:
        """One line per value; every value is a struct of its (struct) schema, or null (an upsert's
        tombstone), which stays null."""
        plans = self._plans
        out = []
        append = out.append
        for schema, value in zip(schemas, values):
            if value is None:
                append(None)
                continue
            plan = plans.get(schema)
            if plan is None:
                plan = plans[schema] = (type_text(schema).encode() + _SEPARATOR, _plain(schema))
            append(plan[0] + _dumps(plan[1](value)).encode("ascii"))
        return out


class TypeLines:
    """The distinct type lines of batches' typed JSON values (nulls skipped), found per batch in Arrow
    without reading the rest of a value: ``observe`` adds each one ``seen`` lacks, as its text."""

    def observe(self, batch: Any, seen: dict[Any, str]) -> None:
        text = batch.column("value").cast(pa.string())  # typed JSON is ASCII
        lines = pc.list_element(pc.split_pattern(text, "\n", max_splits=1), 0)
        for line in pc.unique(lines.drop_null()).to_pylist():
            seen.setdefault(line, line)


def payloads(lines: list) -> list:
    """The values of typed JSON ``lines`` (bytes, or None) as plain data: a struct a dict."""
    return [None if line is None else _payload(line[line.index(_SEPARATOR) + 1 :]) for line in lines]


def _payload(text: bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # NaN, or a lone surrogate's escape: JSON's own reader takes them
        return json.loads(text)


def type_text(schema: Any) -> str:
    """The Spark type of values of ``schema``, as the first line of their typed JSON."""
    return spark_type(schema).json()


def unwritable(schema: Any, path: str = "") -> str | None:
    """The field of ``schema`` that typed JSON cannot carry (a map with bytes keys), or None."""
    if schema.type is Type.STRUCT:
        for field in schema.fields:
            found = unwritable(field.schema, f"{path}.{field.name}" if path else field.name)
            if found is not None:
                return found
    elif schema.type is Type.ARRAY:
        return unwritable(schema.value_schema, f"{path}[]")
    elif schema.type is Type.MAP:
        if schema.key_schema.type is Type.BYTES and schema.key_schema.name != Decimal.LOGICAL_NAME:
            return f"field '{path}': a map with bytes keys cannot be a column"
        return unwritable(schema.key_schema, f"{path}{{key}}") or unwritable(schema.value_schema, f"{path}{{value}}")
    return None


def parse_type(data_type: T.DataType) -> T.DataType:
    """The type ``from_json`` reads a payload of ``data_type`` with: what JSON cannot hold as strings."""
    if isinstance(data_type, T.StructType):
        return T.StructType([T.StructField(f.name, parse_type(f.dataType), True) for f in data_type.fields])
    if isinstance(data_type, T.ArrayType):
        return T.ArrayType(parse_type(data_type.elementType), True)
    if isinstance(data_type, T.MapType):
        return T.MapType(T.StringType(), parse_type(data_type.valueType), True)
    if isinstance(data_type, (T.TimestampType, T.DateType, T.DecimalType)):
        return T.StringType()
    return data_type


def table_rows(text: Column, columns: T.StructType) -> Column:
    """The struct of ``columns`` read from typed JSON lines ``text`` (a string column), in the JVM."""
    payload = text.substr(F.instr(text, "\n") + 1, F.lit(1 << 30))
    parsed = F.from_json(payload, parse_type(columns), {"mode": "FAILFAST"})
    # Every field nullable: a cast may not narrow nullability (the writer checks NOT NULL columns).
    return parsed.cast(merged_type(columns, columns))


def type_line(text: Column) -> Column:
    """The type line of typed JSON lines ``text``."""
    return F.substring_index(text, "\n", 1)


def _plain(schema: Any) -> Plain:
    """A function from a value of ``schema`` to what ``json`` writes for it (see the module docstring)."""
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        return _nullable(lambda value: format(value, "f"))
    if name == Timestamp.LOGICAL_NAME:
        return _nullable(_timestamp)
    if name == Date.LOGICAL_NAME:
        return _nullable(_date)
    if name == Time.LOGICAL_NAME:
        return _nullable(lambda value: value if isinstance(value, int) else temporal_millis(value))
    kind = schema.type
    if kind is Type.STRUCT:
        return _struct(schema)
    if kind is Type.ARRAY:
        item = _plain(schema.value_schema)
        return _nullable(lambda value: [item(v) for v in value])
    if kind is Type.MAP:
        key, item = _plain(schema.key_schema), _plain(schema.value_schema)
        return _nullable(lambda value: {_key_text(key(k)): item(v) for k, v in value.items()})
    if kind is Type.BYTES:
        return _nullable(lambda value: base64.b64encode(value).decode("ascii"))
    return _same


def _same(value: Any) -> Any:
    return value


def _nullable(plain: Plain) -> Plain:
    return lambda value: None if value is None else plain(value)


def _struct(schema: Any) -> Plain:
    names = [f.name for f in schema.fields]
    defaults = [(f.index, f.schema.default) for f in schema.fields if f.schema.default is not None]
    # Only fields JSON cannot take as they are go through a function of their own.
    converted = [(f.name, f.index, plain) for f in schema.fields if (plain := _plain(f.schema)) is not _same]

    def struct(value: Any) -> dict:
        values = value.values_as_put()
        for index, default in defaults:
            if values[index] is None:
                values[index] = default
        out = dict(zip(names, values))
        for name, index, plain in converted:
            out[name] = plain(values[index])
        return out

    return _nullable(struct)


def _timestamp(value: Any) -> str:
    if isinstance(value, int):
        value = _EPOCH + _dt.timedelta(milliseconds=value)
    elif value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    return value.isoformat()


def _date(value: Any) -> str:
    if isinstance(value, int):
        value = EPOCH_DATE + _dt.timedelta(days=value)
    return value.isoformat()


def _key_text(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return key if isinstance(key, str) else str(key)


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
