"""Record values as typed Arrow columns, checked field by field against the table's type.

A :class:`ColumnLayout` is compiled once from a Spark ``StructType`` (the
table's columns): one small normalising function per field, nested as the
type nests.  :meth:`ColumnLayout.rows` runs them over a batch of decoded
values (Connect ``Struct`` objects, or dicts when schemaless) and returns the
rows that fit plus, for each row that does not, an error naming the field
(``field 'amount': 12.345 has more than 2 decimal places``).
:meth:`ColumnLayout.arrow` then builds the Arrow struct column in one call.

What each Spark type accepts from a value: the type its Connect schema maps
to (see :mod:`connectors.table.types`), and for schemaless values the JSON
spellings: an integer for a float or decimal column, a float for a decimal
(its shortest repr, exact), epoch milliseconds or an ISO-8601 string for a
timestamp, days or ``YYYY-MM-DD`` for a date.  Anything else is refused.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from typing import Any, Callable, Sequence

import pyarrow as pa
from pyspark.sql import types as T

from smt.data import Struct
from smt.data.logical import EPOCH, EPOCH_DATE, temporal_millis

__all__ = ["ColumnLayout", "Misfit", "arrow_type"]

_INT_RANGES = {
    T.ByteType: 8,
    T.ShortType: 16,
    T.IntegerType: 32,
    T.LongType: 64,
}


class Misfit(ValueError):
    """A value does not fit its column; ``path`` names the field, ``str()`` says why."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"field '{path}': {reason}" if path else f"the value: {reason}")


Normalise = Callable[[Any], Any]


class ColumnLayout:
    """The columns of a table (a Spark ``StructType``) and how a record value fills them.

    ``strict`` refuses a value with a field the table lacks (a declared
    schema, or a table that may not grow); otherwise such fields are left out.
    """

    def __init__(self, columns: T.StructType, strict: bool = True) -> None:
        self.columns = columns
        self.strict = strict
        self.arrow_type = arrow_type(columns)
        self._row = _struct(columns, "", strict)

    def __reduce__(self):
        # Compiled functions do not pickle: ship the type and compile again on the executor.
        return (ColumnLayout, (self.columns, self.strict))

    def rows(self, values: Sequence[Any]) -> tuple[list[dict | None], list[tuple[int, Misfit]]]:
        """``values`` normalised, and ``(row, Misfit)`` for those that do not fit (their slot is ``None``)."""
        out: list[dict | None] = []
        errors: list[tuple[int, Misfit]] = []
        row_of = self._row
        for row, value in enumerate(values):
            if value is None:
                errors.append((row, Misfit("", "a null value (tombstone) has no columns to write")))
                out.append(None)
                continue
            try:
                out.append(row_of(value))
            except Misfit as exc:
                errors.append((row, exc))
                out.append(None)
        return out, errors

    def arrow(self, rows: list[dict | None]) -> pa.StructArray:
        """Normalised ``rows`` as one Arrow struct array of the table's type."""
        return pa.array(rows, type=self.arrow_type)


def arrow_type(data_type: T.DataType) -> pa.DataType:
    """The Arrow type ``mapInArrow`` takes for a Spark column of ``data_type`` (timestamps in UTC)."""
    if isinstance(data_type, T.StructType):
        return pa.struct([pa.field(f.name, arrow_type(f.dataType), f.nullable) for f in data_type.fields])
    if isinstance(data_type, T.ArrayType):
        return pa.list_(arrow_type(data_type.elementType))
    if isinstance(data_type, T.MapType):
        return pa.map_(arrow_type(data_type.keyType), arrow_type(data_type.valueType))
    if isinstance(data_type, T.DecimalType):
        return pa.decimal128(data_type.precision, data_type.scale)
    return _ARROW[type(data_type)]


_ARROW = {
    T.ByteType: pa.int8(),
    T.ShortType: pa.int16(),
    T.IntegerType: pa.int32(),
    T.LongType: pa.int64(),
    T.FloatType: pa.float32(),
    T.DoubleType: pa.float64(),
    T.BooleanType: pa.bool_(),
    T.StringType: pa.string(),
    T.BinaryType: pa.binary(),
    T.DateType: pa.date32(),
    T.TimestampType: pa.timestamp("us", tz="UTC"),
}


def _normaliser(data_type: T.DataType, path: str, strict: bool) -> Normalise:
    if isinstance(data_type, T.StructType):
        return _struct(data_type, path, strict)
    if isinstance(data_type, T.ArrayType):
        element = _normaliser(data_type.elementType, f"{path}[]", strict)
        return _nullable(_array(element, path))
    if isinstance(data_type, T.MapType):
        key = _normaliser(data_type.keyType, f"{path}{{key}}", strict)
        value = _normaliser(data_type.valueType, f"{path}{{value}}", strict)
        return _nullable(_map(key, value, path))
    for spark_class, bits in _INT_RANGES.items():
        if type(data_type) is spark_class:
            return _nullable(_integer(bits, data_type.simpleString(), path))
    simple = _SIMPLE.get(type(data_type))
    if simple is not None:
        return _nullable(simple(path))
    if isinstance(data_type, T.DecimalType):
        return _nullable(_decimal_of(data_type.precision, data_type.scale, path))
    raise Misfit(path, f"the sink cannot write a column of type {data_type.simpleString()}")


def _nullable(normalise: Normalise) -> Normalise:
    def nullable(value: Any) -> Any:
        return None if value is None else normalise(value)

    return nullable


def _struct(struct_type: T.StructType, path: str, strict: bool) -> Normalise:
    fields = [
        (f.name, _normaliser(f.dataType, f"{path}.{f.name}" if path else f.name, strict), f.nullable)
        for f in struct_type.fields
    ]
    names = frozenset(name for name, _, _ in fields)

    field_names: dict[Any, frozenset[str]] = {}  # per Connect schema, computed once

    def struct(value: Any) -> dict:
        if isinstance(value, Struct):
            get = value.get
            present = field_names.get(value.schema)
            if present is None:
                present = field_names[value.schema] = frozenset(f.name for f in value.schema.fields)
        elif isinstance(value, dict):
            get = value.get
            present = value
        else:
            raise Misfit(path or "(value)", f"expected a struct, found {_kind(value)}")
        if strict and not names.issuperset(present):
            extra = sorted(set(present) - names)[0]
            raise Misfit(f"{path}.{extra}" if path else extra, "is not a column of the table")
        out = {}
        for name, normalise, nullable in fields:
            item = get(name) if name in present else None
            if item is None and not nullable:
                raise Misfit(f"{path}.{name}" if path else name, "is required (NOT NULL) but missing or null")
            out[name] = normalise(item)
        return out

    return _nullable(struct)


def _array(element: Normalise, path: str) -> Normalise:
    def array(value: Any) -> list:
        if not isinstance(value, (list, tuple)):
            raise Misfit(path, f"expected an array, found {_kind(value)}")
        return [element(item) for item in value]

    return array


def _map(key: Normalise, item: Normalise, path: str) -> Normalise:
    def mapping(value: Any) -> list:
        if not isinstance(value, dict):
            raise Misfit(path, f"expected a map, found {_kind(value)}")
        return [(key(k), item(v)) for k, v in value.items()]

    return mapping


def _integer(bits: int, name: str, path: str) -> Normalise:
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def integer(value: Any) -> int:
        if type(value) is not int:
            if isinstance(value, _dt.time) and not isinstance(value, _dt.datetime):
                return temporal_millis(value)  # Connect's Time, as it encodes it
            if not isinstance(value, int) or isinstance(value, bool):
                raise Misfit(path, f"expected {name}, found {_kind(value)}")
        if not low <= value <= high:
            raise Misfit(path, f"{value} is out of range for {name}")
        return value

    return integer


def _floating(path: str) -> Normalise:
    def floating(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Misfit(path, f"expected a number, found {_kind(value)}")
        return float(value)

    return floating


def _boolean(path: str) -> Normalise:
    def boolean(value: Any) -> bool:
        if not isinstance(value, bool):
            raise Misfit(path, f"expected boolean, found {_kind(value)}")
        return value

    return boolean


def _string(path: str) -> Normalise:
    def string(value: Any) -> str:
        if not isinstance(value, str):
            raise Misfit(path, f"expected string, found {_kind(value)}")
        return value

    return string


def _binary(path: str) -> Normalise:
    def binary(value: Any) -> bytes:
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise Misfit(path, f"expected bytes, found {_kind(value)}")
        return bytes(value)

    return binary


def _date(path: str) -> Normalise:
    def date(value: Any) -> _dt.date:
        if isinstance(value, _dt.datetime):
            raise Misfit(path, "expected a date, found a timestamp")
        if isinstance(value, _dt.date):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return EPOCH_DATE + _dt.timedelta(days=value)
        if isinstance(value, str):
            try:
                return _dt.date.fromisoformat(value)
            except ValueError:
                raise Misfit(path, f"'{value}' is not a date (YYYY-MM-DD)") from None
        raise Misfit(path, f"expected a date, found {_kind(value)}")

    return date


def _timestamp(path: str) -> Normalise:
    def timestamp(value: Any) -> _dt.datetime:
        if isinstance(value, _dt.datetime):
            return value if value.tzinfo is not None else value.replace(tzinfo=_dt.timezone.utc)
        if isinstance(value, int) and not isinstance(value, bool):
            return EPOCH + _dt.timedelta(milliseconds=value)
        if isinstance(value, str):
            try:
                parsed = _dt.datetime.fromisoformat(value)
            except ValueError:
                raise Misfit(path, f"'{value}' is not an ISO-8601 timestamp") from None
            return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=_dt.timezone.utc)
        raise Misfit(path, f"expected a timestamp, found {_kind(value)}")

    return timestamp


def _decimal_of(precision: int, scale: int, path: str) -> Normalise:
    quantum = _decimal.Decimal(1).scaleb(-scale)
    integer_digits = precision - scale

    def decimal(value: Any) -> _decimal.Decimal:
        if isinstance(value, _decimal.Decimal):
            number = value
        elif isinstance(value, int) and not isinstance(value, bool):
            number = _decimal.Decimal(value)
        elif isinstance(value, float):
            number = _decimal.Decimal(repr(value))
        else:
            raise Misfit(path, f"expected decimal({precision},{scale}), found {_kind(value)}")
        if not number.is_finite():
            raise Misfit(path, f"{number} is not a finite decimal")
        scaled = number.quantize(quantum, context=_WIDE)
        if scaled != number:
            raise Misfit(path, f"{number} has more than {scale} decimal places")
        if scaled.adjusted() >= integer_digits:
            raise Misfit(path, f"{number} does not fit decimal({precision},{scale})")
        return scaled

    return decimal


_WIDE = _decimal.Context(prec=100)

_SIMPLE: dict[type, Callable[[str], Normalise]] = {
    T.FloatType: _floating,
    T.DoubleType: _floating,
    T.BooleanType: _boolean,
    T.StringType: _string,
    T.BinaryType: _binary,
    T.DateType: _date,
    T.TimestampType: _timestamp,
}


def _kind(value: Any) -> str:
    if isinstance(value, Struct):
        return "a struct"
    return f"{type(value).__name__} {value!r}"[:80]
