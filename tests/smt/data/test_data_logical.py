"""Logical types: golden encodings both ways, and schema mismatches."""

import datetime as dt
import decimal

import pytest

from smt.data import Date, Decimal, Schema, Time, Timestamp, from_logical, to_logical
from smt.data.logical import EPOCH, datetime_to_millis, millis_to_datetime, temporal_millis
from smt.errors import DataError

UTC = dt.timezone.utc

GOLDEN = [
    (Decimal.schema(2), decimal.Decimal("1.28"), b"\x00\x80"),
    (Decimal.schema(2), decimal.Decimal("-1.28"), b"\x80"),
    (Decimal.schema(0), decimal.Decimal("0"), b"\x00"),
    (Decimal.schema(3), decimal.Decimal("-0.001"), b"\xff"),
    (
        Decimal.schema(0),
        decimal.Decimal("123456789012345678901234567890123"),
        (123456789012345678901234567890123).to_bytes(14, "big", signed=True),
    ),
    (Date.SCHEMA, dt.date(1970, 1, 1), 0),
    (Date.SCHEMA, dt.date(2020, 2, 29), 18321),
    (Date.SCHEMA, dt.date(1969, 12, 31), -1),
    (Time.SCHEMA, dt.time(0, 0), 0),
    (Time.SCHEMA, dt.time(12, 34, 56, 789000), 45296789),
    (Timestamp.SCHEMA, dt.datetime(1970, 1, 1, tzinfo=UTC), 0),
    (Timestamp.SCHEMA, dt.datetime(2020, 2, 29, 12, 0, 0, 5000, tzinfo=UTC), 1582977600005),
    (Timestamp.SCHEMA, dt.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=UTC), -1),
]


@pytest.mark.parametrize("schema, logical, encoded", GOLDEN)
def test_golden_both_ways(schema, logical, encoded):
    assert from_logical(schema, logical) == encoded
    assert to_logical(schema, encoded) == logical


def test_decimal_keeps_precision_beyond_context():
    value = decimal.Decimal("1234567890123456789012345678901234567890.12")
    schema = Decimal.schema(2)
    assert to_logical(schema, from_logical(schema, value)) == value
    assert str(to_logical(schema, from_logical(schema, value))) == str(value)


def test_decimal_schema_shape():
    schema = Decimal.schema(4)
    assert schema.name == "org.apache.kafka.connect.data.Decimal"
    assert dict(schema.parameters) == {"scale": "4"}
    assert schema.type.value == "bytes"


def test_decimal_scale_mismatch():
    with pytest.raises(DataError, match="Schema has scale 2, value has scale 1."):
        Decimal.from_logical(Decimal.schema(2), decimal.Decimal("1.5"))


def test_decimal_without_scale():
    with pytest.raises(DataError, match="scale parameter not found"):
        Decimal.scale(Schema.BYTES_SCHEMA)


def test_naive_timestamp_is_utc():
    assert Timestamp.from_logical(Timestamp.SCHEMA, dt.datetime(1970, 1, 1, 0, 0, 1)) == 1000


def test_date_with_time_is_rejected():
    with pytest.raises(DataError, match="should not have any time fields"):
        Date.from_logical(Date.SCHEMA, dt.datetime(2020, 1, 1, 1, 0))


def test_time_out_of_range():
    with pytest.raises(DataError, match="less than 86400000"):
        Time.to_logical(Time.SCHEMA, 86_400_000)


def test_schema_mismatch():
    with pytest.raises(DataError, match="Requested conversion of Timestamp object but the schema does not match."):
        Timestamp.to_logical(Schema.INT64_SCHEMA, 5)


def test_plain_schemas_pass_values_through():
    assert to_logical(Schema.INT64_SCHEMA, 5) == 5
    assert from_logical(None, "x") == "x"


@pytest.mark.parametrize(
    "schema, encoded, message",
    [
        (Date.SCHEMA, -622191233, r"Date -622191233 \(days since 1970-01-01\) is outside the years 1 to 9999"),
        (Date.SCHEMA, 2**31 - 1, r"Date 2147483647 \(days since 1970-01-01\) is outside"),
        (Timestamp.SCHEMA, 2**62, r"Timestamp 4611686018427387904 \(milliseconds since 1970\) is outside"),
        (Timestamp.SCHEMA, -(2**63), r"Timestamp -9223372036854775808 \(milliseconds since 1970\) is outside"),
    ],
)
def test_dates_beyond_year_9999_are_data_errors(schema, encoded, message):
    """Kafka's dates reach 292 million years from 1970, Python's the years 1-9999: never an OverflowError."""
    with pytest.raises(DataError, match=message):
        to_logical(schema, encoded)


@pytest.mark.parametrize(
    "value, millis",
    [
        (dt.datetime(1970, 1, 2, 0, 0, 1, 234999, tzinfo=dt.timezone.utc), 86_401_234),
        (dt.datetime(1970, 1, 2, 0, 0, 1, 234999), 86_401_234),  # naive is UTC
        (dt.datetime(1969, 12, 31, 23, 59, 59, 999500, tzinfo=dt.timezone.utc), -1),  # floors, as Java does
        (dt.datetime(1970, 1, 1, 2, tzinfo=dt.timezone(dt.timedelta(hours=2))), 0),
        (dt.date(1969, 12, 31), -86_400_000),
        (dt.time(0, 0, 1, 5000), 1005),
    ],
)
def test_temporal_millis_is_epoch_millis_as_java_util_date_holds_them(value, millis):
    assert temporal_millis(value) == millis
    if isinstance(value, dt.datetime):
        assert datetime_to_millis(value) == millis
        assert millis_to_datetime(millis) == EPOCH + dt.timedelta(milliseconds=millis)
