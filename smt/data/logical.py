"""Kafka Connect's logical types: Decimal, Date, Time and Timestamp.

Each is a primitive schema with a well-known name.  In Python the values are
``decimal.Decimal`` (Decimal), ``datetime.date`` (Date), ``datetime.time``
(Time) and timezone-aware UTC ``datetime.datetime`` (Timestamp); a naive
datetime is taken to be UTC.  ``from_logical`` gives the encoded value
(unscaled two's-complement bytes, days, milliseconds), ``to_logical`` reads it.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from typing import Any

from smt.data import logical_names
from smt.data.builder import SchemaBuilder
from smt.data.logical_names import LOGICAL_NAMES
from smt.data.schema import Schema
from smt.errors import DataError

__all__ = [
    "Date",
    "Decimal",
    "Time",
    "Timestamp",
    "LOGICAL_NAMES",
    "EPOCH",
    "EPOCH_DATE",
    "MILLIS_PER_DAY",
    "datetime_to_millis",
    "days_to_date",
    "from_logical",
    "is_logical",
    "millis_to_datetime",
    "temporal_millis",
    "to_logical",
]

#: The epoch every millisecond count here is from: the one definition the project imports.
EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
EPOCH_DATE = EPOCH.date()
MILLIS_PER_DAY = 86_400_000


def _check_schema(schema: Schema, logical_name: str, what: str) -> None:
    if schema is None or schema.name != logical_name:
        raise DataError(f"Requested conversion of {what} object but the schema does not match.")


class Decimal:
    """Arbitrary-precision decimals: BYTES holding the unscaled value, parameter ``scale``."""

    LOGICAL_NAME = logical_names.DECIMAL
    SCALE_FIELD = "scale"

    @staticmethod
    def builder(scale: int) -> SchemaBuilder:
        return (
            SchemaBuilder.bytes_().name(Decimal.LOGICAL_NAME).parameter(Decimal.SCALE_FIELD, str(int(scale))).version(1)
        )

    @staticmethod
    def schema(scale: int) -> Schema:
        return Decimal.builder(scale).build()

    @staticmethod
    def scale(schema: Schema) -> int:
        text = schema.parameters.get(Decimal.SCALE_FIELD)
        if text is None:
            raise DataError("Invalid Decimal schema: scale parameter not found.")
        try:
            return int(text)
        except ValueError as exc:
            raise DataError(f"Invalid scale parameter found in Decimal schema: {text!r}") from exc

    @staticmethod
    def from_logical(schema: Schema, value: _decimal.Decimal) -> bytes:
        scale = Decimal.scale(schema)
        sign, digits, exponent = value.as_tuple()
        if not isinstance(exponent, int):
            raise DataError(f"Decimal value {value} is not a finite number")
        if -exponent != scale:
            raise DataError(
                f"Decimal value has mismatching scale for given Decimal schema. "
                f"Schema has scale {scale}, value has scale {-exponent}."
            )
        unscaled = int("".join(map(str, digits)) or "0")
        if sign:
            unscaled = -unscaled
        return unscaled.to_bytes(_signed_length(unscaled), "big", signed=True)

    @staticmethod
    def to_logical(schema: Schema, value: bytes) -> _decimal.Decimal:
        unscaled = int.from_bytes(value, "big", signed=True)
        digits = tuple(int(d) for d in str(abs(unscaled)))
        # Built from a tuple, not by arithmetic, so no context precision rounds it.
        return _decimal.Decimal((int(unscaled < 0), digits, -Decimal.scale(schema)))


def _signed_length(number: int) -> int:
    # Minimal two's-complement length, as Java's BigInteger.toByteArray.
    return (number + (number < 0)).bit_length() // 8 + 1


class Date:
    """A calendar date: INT32 days since the Unix epoch."""

    LOGICAL_NAME = logical_names.DATE

    @staticmethod
    def builder() -> SchemaBuilder:
        return SchemaBuilder.int32().name(Date.LOGICAL_NAME).version(1)

    SCHEMA: Schema

    @staticmethod
    def from_logical(schema: Schema, value: _dt.date) -> int:
        _check_schema(schema, Date.LOGICAL_NAME, "Date")
        if isinstance(value, _dt.datetime):
            if value.timetz().replace(tzinfo=None) != _dt.time(0):
                raise DataError("Kafka Connect Date type should not have any time fields set to non-zero values.")
            value = value.date()
        return (value - EPOCH_DATE).days

    @staticmethod
    def to_logical(schema: Schema, value: int) -> _dt.date:
        _check_schema(schema, Date.LOGICAL_NAME, "Date")
        return days_to_date(value)


class Time:
    """A time of day: INT32 milliseconds since midnight."""

    LOGICAL_NAME = logical_names.TIME

    @staticmethod
    def builder() -> SchemaBuilder:
        return SchemaBuilder.int32().name(Time.LOGICAL_NAME).version(1)

    SCHEMA: Schema

    @staticmethod
    def from_logical(schema: Schema, value: _dt.time) -> int:
        _check_schema(schema, Time.LOGICAL_NAME, "Time")
        return (value.hour * 3600 + value.minute * 60 + value.second) * 1000 + value.microsecond // 1000

    @staticmethod
    def to_logical(schema: Schema, value: int) -> _dt.time:
        _check_schema(schema, Time.LOGICAL_NAME, "Time")
        if not 0 <= value < MILLIS_PER_DAY:
            raise DataError("Time values must use number of milliseconds greater than 0 and less than 86400000")
        seconds, millis = divmod(value, 1000)
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        return _dt.time(hour, minute, second, millis * 1000)


class Timestamp:
    """An instant: INT64 milliseconds since the Unix epoch (UTC)."""

    LOGICAL_NAME = logical_names.TIMESTAMP

    @staticmethod
    def builder() -> SchemaBuilder:
        return SchemaBuilder.int64().name(Timestamp.LOGICAL_NAME).version(1)

    SCHEMA: Schema

    @staticmethod
    def from_logical(schema: Schema, value: _dt.datetime) -> int:
        _check_schema(schema, Timestamp.LOGICAL_NAME, "Timestamp")
        return datetime_to_millis(value)

    @staticmethod
    def to_logical(schema: Schema, value: int) -> _dt.datetime:
        _check_schema(schema, Timestamp.LOGICAL_NAME, "Timestamp")
        return millis_to_datetime(value)


def datetime_to_millis(value: _dt.datetime) -> int:
    """Epoch milliseconds of ``value`` (naive means UTC), exact in integers."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    delta = value - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def temporal_millis(value: _dt.date | _dt.time) -> int:
    """Epoch millis of a date, time (millis of day) or datetime, as java.util.Date holds them."""
    if isinstance(value, _dt.datetime):
        return datetime_to_millis(value)
    if isinstance(value, _dt.date):
        return (value - EPOCH_DATE).days * MILLIS_PER_DAY
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000


#: Why a date or timestamp beyond Python's datetime fails (Kafka's java.util.Date reaches
#: 292 million years either side of 1970); the "dates-beyond-year-9999" deviation.
OUT_OF_RANGE = "is outside the years 1 to 9999 that dates and timestamps can hold here"


def millis_to_datetime(millis: int) -> _dt.datetime:
    """The UTC datetime ``millis`` after the epoch; raises DataError beyond the years 1-9999."""
    try:
        return EPOCH + _dt.timedelta(milliseconds=millis)
    except OverflowError:
        raise DataError(f"Timestamp {millis} (milliseconds since 1970) {OUT_OF_RANGE}") from None


def days_to_date(days: int) -> _dt.date:
    """The date ``days`` after 1970-01-01; raises DataError beyond the years 1-9999."""
    try:
        return EPOCH_DATE + _dt.timedelta(days=days)
    except OverflowError:
        raise DataError(f"Date {days} (days since 1970-01-01) {OUT_OF_RANGE}") from None


Date.SCHEMA = Date.builder().build()
Time.SCHEMA = Time.builder().build()
Timestamp.SCHEMA = Timestamp.builder().build()


def to_logical(schema: Schema | None, value: Any) -> Any:
    """The logical value for an encoded ``value`` when ``schema`` is a logical type."""
    if value is None or schema is None or schema.name is None:
        return value
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        return Decimal.to_logical(schema, value)
    if name == Date.LOGICAL_NAME:
        return Date.to_logical(schema, value)
    if name == Time.LOGICAL_NAME:
        return Time.to_logical(schema, value)
    if name == Timestamp.LOGICAL_NAME:
        return Timestamp.to_logical(schema, value)
    return value


def from_logical(schema: Schema | None, value: Any) -> Any:
    """The encoded value for a logical ``value`` when ``schema`` is a logical type."""
    if value is None or schema is None or schema.name is None:
        return value
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        return Decimal.from_logical(schema, value)
    if name == Date.LOGICAL_NAME:
        return Date.from_logical(schema, value)
    if name == Time.LOGICAL_NAME:
        return Time.from_logical(schema, value)
    if name == Timestamp.LOGICAL_NAME:
        return Timestamp.from_logical(schema, value)
    return value


def is_logical(schema: Schema | None) -> bool:
    return schema is not None and schema.name in LOGICAL_NAMES
