"""The five timestamp representations TimestampConverter converts between.

Each converts to and from epoch milliseconds: ``string`` (a SimpleDateFormat
pattern, UTC), ``unix`` (a number in the configured precision), ``Date``
(``datetime.date``), ``Time`` (``datetime.time``) and ``Timestamp`` (an aware
UTC ``datetime``), with Kafka's schemas for each.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from smt.data.logical import MILLIS_PER_DAY, days_to_date, millis_to_datetime, temporal_millis
from smt.errors import DataError
from smt.timeformat import DateFormat, DateFormatError

__all__ = ["TYPES", "to_millis", "from_millis", "schema_for", "type_from_schema", "infer_type"]

TYPES = ("string", "unix", "Date", "Time", "Timestamp")
_UNIX_TO_MILLIS = {
    "seconds": (1000, 1),
    "milliseconds": (1, 1),
    "microseconds": (1, 1000),
    "nanoseconds": (1, 1_000_000),
}


_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _truncate(numerator: int, denominator: int) -> int:
    """Division truncating toward zero, as Java's TimeUnit conversions do."""
    quotient = abs(numerator) // denominator
    return quotient if numerator >= 0 else -quotient


def _scale_up(value: int, factor: int) -> int:
    """``value * factor`` saturated to a Java long, as TimeUnit's conversions to a finer unit are
    (``SECONDS.toMillis(2**62)`` is ``Long.MAX_VALUE``)."""
    return min(max(value * factor, _LONG_MIN), _LONG_MAX)


def to_millis(kind: str, value: Any, date_format: DateFormat | None, precision: str) -> int:
    if kind == "string":
        if not isinstance(value, str):
            raise DataError(f"Expected string timestamp to be a String, but found {type(value).__name__}")
        if date_format is None:
            raise DataError("TimestampConverter requires format option to be specified when using string timestamps")
        try:
            return date_format.parse(value)
        except DateFormatError as exc:
            raise DataError(
                f"Could not parse timestamp: value ({value}) does not match pattern ({date_format.pattern})"
            ) from exc
    if kind == "unix":
        if not isinstance(value, int) or isinstance(value, bool):
            raise DataError(f"Expected Unix timestamp to be a Long, but found {type(value).__name__}")
        multiply, divide = _UNIX_TO_MILLIS[precision]
        return _truncate(_scale_up(value, multiply), divide)
    if isinstance(value, (_dt.date, _dt.time)):
        return temporal_millis(value)
    raise DataError(f"Expected {kind} to be a date, time or datetime, but found {type(value).__name__}")


def from_millis(kind: str, millis: int, date_format: DateFormat | None, precision: str) -> Any:
    """``millis`` as ``kind``; raises DataError for a date beyond the years 1-9999 (Kafka has none)."""
    if kind == "string":
        try:
            return date_format.format(millis)
        except DateFormatError as exc:
            raise DataError(str(exc)) from None
    if kind == "unix":
        divide, multiply = _UNIX_TO_MILLIS[precision]
        return _scale_up(_truncate(millis, divide), multiply)
    if kind == "Date":
        return days_to_date(millis // MILLIS_PER_DAY)
    if kind == "Time":
        of_day = millis % MILLIS_PER_DAY
        seconds, ms = divmod(of_day, 1000)
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        return _dt.time(hour, minute, second, ms * 1000)
    return millis_to_datetime(millis)


def schema_for(kind: str, optional: bool) -> Any:
    from smt.data import Date, Schema, Time, Timestamp

    schemas = {
        "string": Schema.STRING_SCHEMA,
        "unix": Schema.INT64_SCHEMA,
        "Date": Date.SCHEMA,
        "Time": Time.SCHEMA,
        "Timestamp": Timestamp.SCHEMA,
    }
    builders = {
        "string": Schema.OPTIONAL_STRING_SCHEMA,
        "unix": Schema.OPTIONAL_INT64_SCHEMA,
    }
    if not optional:
        return schemas[kind]
    if kind in builders:
        return builders[kind]
    logical = {"Date": Date, "Time": Time, "Timestamp": Timestamp}[kind]
    return logical.builder().optional().build()


def type_from_schema(schema: Any) -> str:
    from smt.data import Date, Time, Timestamp, Type

    if schema.name == Timestamp.LOGICAL_NAME:
        return "Timestamp"
    if schema.name == Date.LOGICAL_NAME:
        return "Date"
    if schema.name == Time.LOGICAL_NAME:
        return "Time"
    if schema.type is Type.STRING:
        return "string"
    if schema.type is Type.INT64:
        return "unix"
    raise DataError(f"Schema {schema!r} does not correspond to a known timestamp type format")


def infer_type(value: Any) -> str:
    if isinstance(value, _dt.datetime):
        return "Timestamp"
    if isinstance(value, _dt.date):
        return "Date"
    if isinstance(value, _dt.time):
        return "Time"
    if isinstance(value, int) and not isinstance(value, bool):
        return "unix"
    if isinstance(value, str):
        return "string"
    raise DataError(f"TimestampConverter does not support {type(value).__name__} objects as timestamps")
