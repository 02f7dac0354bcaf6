"""TimestampConverter, with the cases of Kafka's TimestampConverterTest."""

import datetime as dt

import pytest

from smt.data import Date, Schema, SchemaBuilder, Struct, Time, Timestamp
from smt.errors import ConfigError, DataError
from smt.transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue
from tests.smt.transforms._helpers import conf, make_record

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
DATE_PLUS_TIME = dt.datetime(1970, 1, 2, 0, 0, 1, 234000, tzinfo=UTC)
DATE = dt.date(1970, 1, 2)
TIME = dt.time(0, 0, 1, 234000)
UNIX = 86_401_234
UNIX_MICROS = UNIX * 1000 + 123
UNIX_NANOS = UNIX_MICROS * 1000 + 456
UNIX_SECONDS = 86_401
FMT = "yyyy MM dd HH mm ss SSS z"
TEXT = "1970 01 02 00 00 01 234 UTC"

OPTIONAL = {
    "Timestamp": Timestamp.builder().optional().build(),
    "Date": Date.builder().optional().build(),
    "Time": Time.builder().optional().build(),
    "unix": Schema.OPTIONAL_INT64_SCHEMA,
    "string": Schema.OPTIONAL_STRING_SCHEMA,
}
REQUIRED_SCHEMA = {
    "Timestamp": Timestamp.SCHEMA,
    "Date": Date.SCHEMA,
    "Time": Time.SCHEMA,
    "unix": Schema.INT64_SCHEMA,
    "string": Schema.STRING_SCHEMA,
}


def value_xform(**props):
    return conf(TimestampConverterValue, {k.replace("_", "."): v for k, v in props.items()})


@pytest.mark.parametrize(
    "props, message",
    [
        ({}, "transforms.t.target.type: is required"),
        ({"target.type": "invalid"}, "transforms.t.target.type: must be one of"),
        ({"target.type": "unix", "unix.precision": "invalid"}, "transforms.t.unix.precision: must be one of"),
        ({"target.type": "string"}, "transforms.t.format: TimestampConverter requires format option"),
        (
            {"target.type": "string", "format": "bad-format"},
            "transforms.t.format: TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: bad-format",
        ),
    ],
)
def test_config_errors(props, message):
    with pytest.raises(ConfigError, match=message):
        conf(TimestampConverterValue, props)


def test_valid_unix_precision():
    assert value_xform(target_type="unix", unix_precision="seconds").precision == "seconds"


# Schemaless: (target, input, output)
SCHEMALESS = [
    ("Timestamp", DATE_PLUS_TIME, DATE_PLUS_TIME),
    ("Date", DATE_PLUS_TIME, DATE),
    ("Time", DATE_PLUS_TIME, TIME),
    ("unix", DATE_PLUS_TIME, UNIX),
    ("string", DATE_PLUS_TIME, TEXT),
    ("Timestamp", DATE, dt.datetime(1970, 1, 2, tzinfo=UTC)),
    ("Timestamp", TIME, EPOCH + dt.timedelta(milliseconds=1234)),
    ("Timestamp", UNIX, DATE_PLUS_TIME),
    ("Timestamp", TEXT, DATE_PLUS_TIME),
]


@pytest.mark.parametrize("target, value, expected", SCHEMALESS)
def test_schemaless(target, value, expected):
    out = value_xform(target_type=target, format=FMT).apply(make_record(value))
    assert out.value_schema is None and out.value == expected


# With schema: (target, input schema, input, output schema, output)
WITH_SCHEMA = [
    ("Timestamp", Timestamp.SCHEMA, DATE_PLUS_TIME, Timestamp.SCHEMA, DATE_PLUS_TIME),
    ("Date", Timestamp.SCHEMA, DATE_PLUS_TIME, Date.SCHEMA, DATE),
    ("Time", Timestamp.SCHEMA, DATE_PLUS_TIME, Time.SCHEMA, TIME),
    ("unix", Timestamp.SCHEMA, DATE_PLUS_TIME, Schema.INT64_SCHEMA, UNIX),
    ("string", Timestamp.SCHEMA, DATE_PLUS_TIME, Schema.STRING_SCHEMA, TEXT),
    ("Timestamp", Date.SCHEMA, DATE, Timestamp.SCHEMA, dt.datetime(1970, 1, 2, tzinfo=UTC)),
    ("Timestamp", Time.SCHEMA, TIME, Timestamp.SCHEMA, EPOCH + dt.timedelta(milliseconds=1234)),
    ("Timestamp", Schema.INT64_SCHEMA, UNIX, Timestamp.SCHEMA, DATE_PLUS_TIME),
    ("Timestamp", Schema.STRING_SCHEMA, TEXT, Timestamp.SCHEMA, DATE_PLUS_TIME),
]


@pytest.mark.parametrize("target, schema, value, expected_schema, expected", WITH_SCHEMA)
def test_with_schema(target, schema, value, expected_schema, expected):
    out = value_xform(target_type=target, format=FMT).apply(make_record(value, value_schema=schema))
    assert out.value_schema == expected_schema and out.value == expected


@pytest.mark.parametrize("target", list(OPTIONAL))
@pytest.mark.parametrize("field", ["", "ts"])
def test_schemaless_nulls(target, field):
    out = value_xform(target_type=target, format=FMT, field=field).apply(make_record(None))
    assert out.value_schema is None and out.value is None


NULL_CONVERSIONS = [(target, source) for target in OPTIONAL for source in OPTIONAL]


@pytest.mark.parametrize("target, source", NULL_CONVERSIONS)
def test_with_schema_null_value(target, source):
    out = value_xform(target_type=target, format=FMT).apply(make_record(None, value_schema=OPTIONAL[source]))
    assert out.value_schema == OPTIONAL[target] and out.value is None


def test_a_null_under_a_schema_no_timestamp_has_fails_as_in_kafka():
    record = make_record(None, value_schema=Schema.OPTIONAL_INT16_SCHEMA)
    with pytest.raises(DataError, match=r"Schema .*INT16.* does not correspond to a known timestamp type format"):
        value_xform(target_type="Date", format=FMT).apply(record)


@pytest.mark.parametrize("target, source", NULL_CONVERSIONS)
def test_with_schema_null_field(target, source):
    xform = value_xform(target_type=target, format=FMT, field="ts")
    schema = SchemaBuilder.struct().field("ts", OPTIONAL[source]).field("other", Schema.STRING_SCHEMA)
    expected = SchemaBuilder.struct().field("ts", OPTIONAL[target]).field("other", Schema.STRING_SCHEMA)
    out = xform.apply(
        make_record(Struct(schema.build()).put("ts", None).put("other", "test"), value_schema=schema.build())
    )
    assert out.value_schema == expected.build() and out.value.get("ts") is None
    out = xform.apply(make_record(None, value_schema=schema.optional().build()))
    assert out.value_schema == expected.optional().build() and out.value is None


def test_schemaless_field_conversion():
    out = value_xform(target_type="Date", field="ts").apply(make_record({"ts": DATE_PLUS_TIME}))
    assert out.value == {"ts": DATE}


def test_with_schema_field_conversion():
    schema = SchemaBuilder.struct().field("ts", Schema.INT64_SCHEMA).field("other", Schema.STRING_SCHEMA).build()
    out = value_xform(target_type="Timestamp", field="ts").apply(
        make_record(Struct(schema).put("ts", UNIX).put("other", "test"), value_schema=schema)
    )
    assert (
        out.value_schema
        == SchemaBuilder.struct().field("ts", Timestamp.SCHEMA).field("other", Schema.STRING_SCHEMA).build()
    )
    assert (out.value.get("ts"), out.value.get("other")) == (DATE_PLUS_TIME, "test")


def test_with_schema_null_field_with_default_not_replaced():
    schema = (
        SchemaBuilder.struct()
        .field("ts", SchemaBuilder.int64().optional().default_value(0).build())
        .field("other", Schema.STRING_SCHEMA)
        .build()
    )
    xform = value_xform(target_type="Timestamp", field="ts", replace_null_with_default="false")
    out = xform.apply(make_record(Struct(schema).put("ts", None).put("other", "test"), value_schema=schema))
    assert out.value_schema.field("ts").schema == OPTIONAL["Timestamp"]
    assert out.value.get("ts") is None and out.value.get("other") == "test"


@pytest.mark.parametrize(
    "precision, unix, expected",
    [
        ("microseconds", UNIX_MICROS, DATE_PLUS_TIME),
        ("nanoseconds", UNIX_NANOS, DATE_PLUS_TIME),
        ("seconds", UNIX_SECONDS, dt.datetime(1970, 1, 2, 0, 0, 1, tzinfo=UTC)),
    ],
)
def test_with_schema_field_unix_precision(precision, unix, expected):
    schema = SchemaBuilder.struct().field("ts", Schema.INT64_SCHEMA).build()
    xform = value_xform(target_type="Timestamp", field="ts", unix_precision=precision)
    out = xform.apply(make_record(Struct(schema).put("ts", unix), value_schema=schema))
    assert out.value_schema == SchemaBuilder.struct().field("ts", Timestamp.SCHEMA).build()
    assert out.value.get("ts") == expected


@pytest.mark.parametrize(
    "precision, expected",
    [
        ("microseconds", 86_401_234_000),
        ("nanoseconds", 86_401_234_000_000),
        ("seconds", UNIX_SECONDS),
    ],
)
def test_schemaless_string_to_unix_precision(precision, expected):
    out = value_xform(target_type="unix", unix_precision=precision, format=FMT).apply(make_record(TEXT))
    assert out.value == expected


def test_key():
    out = conf(TimestampConverterKey, {"target.type": "Timestamp"}).apply(make_record(None, key=DATE_PLUS_TIME))
    assert out.key_schema is None and out.key == DATE_PLUS_TIME


# --- errors and additions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "props, value, message",
    [
        (
            {"target.type": "unix", "format": FMT},
            "not a date",
            r"Could not parse timestamp: value \(not a date\) does not match pattern \(yyyy MM dd HH mm ss SSS z\)",
        ),
        ({"target.type": "unix"}, "1970", "requires format option"),
        ({"target.type": "unix"}, [1], "TimestampConverter does not support list objects as timestamps"),
        (
            {"target.type": "unix", "field": "ts"},
            "x",
            r"Only Map objects supported in absence of schema for \[converting timestamp formats\], found: str",
        ),
    ],
)
def test_data_errors(props, value, message):
    with pytest.raises(DataError, match=message):
        conf(TimestampConverterValue, props).apply(make_record(value))


def test_unknown_schema_type_is_an_error():
    with pytest.raises(DataError, match="does not correspond to a known timestamp type format"):
        value_xform(target_type="unix").apply(make_record(1, value_schema=Schema.INT32_SCHEMA))


def test_nested_field_v2_schemaless():
    xform = value_xform(target_type="string", format="yyyy-MM-dd", field="meta.ts", field_syntax_version="V2")
    assert xform.apply(make_record({"meta": {"ts": UNIX}, "x": 1})).value == {"meta": {"ts": "1970-01-02"}, "x": 1}


def test_negative_unix_truncates_like_java():
    # TimeUnit.MICROSECONDS.toMillis truncates toward zero: -1500 µs is -1 ms.
    out = value_xform(target_type="unix", unix_precision="microseconds").apply(
        make_record(EPOCH - dt.timedelta(milliseconds=2))
    )
    assert out.value == -2000
    back = value_xform(target_type="Timestamp", unix_precision="microseconds").apply(make_record(-1500))
    assert back.value == EPOCH - dt.timedelta(milliseconds=1)


def test_derived_schema_is_cached():
    schema = SchemaBuilder.struct().field("ts", Schema.INT64_SCHEMA).build()
    xform = value_xform(target_type="Timestamp", field="ts")
    first = xform.apply(make_record(Struct(schema).put("ts", 1), value_schema=schema))
    second = xform.apply(make_record(Struct(schema).put("ts", 2), value_schema=schema))
    assert first.value_schema is second.value_schema and xform.schema_cache.misses == 1


# --- beyond Python's dates (the dates-beyond-year-9999 deviation) -----------------------------------

BEYOND_YEAR_9999 = "is outside the years 1 to 9999 that dates and timestamps can hold here"


@pytest.mark.parametrize(
    "target, extra, millis, message",
    [
        # Oracle cases: Kafka's java.util.Date holds these; Python's datetime does not.
        ("Date", {}, -53_757_722_531_000_000, r"Date -622195863 \(days since 1970-01-01\) " + BEYOND_YEAR_9999),
        ("Timestamp", {}, 2**62, r"Timestamp 4611686018427387904 \(milliseconds since 1970\) " + BEYOND_YEAR_9999),
        ("string", {"format": "yyyy-MM-dd"}, -(2**63), r"Timestamp -9223372036854775808 \(milliseconds since 1970\) "),
        ("Date", {"unix.precision": "microseconds"}, 2**62, r"Date 53375995 \(days since 1970-01-01\) "),
    ],
)
def test_a_unix_time_beyond_year_9999_fails_with_a_data_error(target, extra, millis, message):
    schema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build()
    xform = conf(TimestampConverterValue, {"field": "id", "target.type": target, **extra})
    with pytest.raises(DataError, match=message):
        xform.apply(make_record(Struct(schema).put("id", millis), value_schema=schema))


def test_times_of_day_and_unix_targets_of_far_times_still_convert():
    schema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build()
    record = make_record(Struct(schema).put("id", 2**62), value_schema=schema)
    assert conf(TimestampConverterValue, {"field": "id", "target.type": "Time"}).apply(record).value.get(
        "id"
    ) == dt.time(15, 36, 27, 904000)
    assert (
        conf(TimestampConverterValue, {"field": "id", "target.type": "unix", "unix.precision": "microseconds"})
        .apply(record)
        .value.get("id")
        == 2**62 // 1000 * 1000
    )


@pytest.mark.parametrize(
    "precision, target, unix, expected",
    [
        # Oracle cases: Java's TimeUnit saturates at the long range where it scales to a finer unit.
        ("seconds", "unix", 2**62, 9223372036854775),  # SECONDS.toMillis saturates, then back to seconds
        ("seconds", "unix", -(2**63), -9223372036854775),
        ("seconds", "Time", 2**62, dt.time(7, 12, 55, 807000)),  # Long.MAX_VALUE ms, as a time of day
        ("nanoseconds", "unix", 2**63 - 1, 9223372036854000000),
    ],
)
def test_unix_precision_scaling_saturates_like_java(precision, target, unix, expected):
    schema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build()
    xform = conf(TimestampConverterValue, {"field": "id", "target.type": target, "unix.precision": precision})
    assert xform.apply(make_record(Struct(schema).put("id", unix), value_schema=schema)).value.get("id") == expected


def test_a_far_timestamp_in_nanoseconds_saturates_like_java():
    year_2300 = dt.datetime(2300, 1, 1, tzinfo=dt.timezone.utc)
    out = value_xform(target_type="unix", unix_precision="nanoseconds").apply(make_record(year_2300))
    assert out.value == 2**63 - 1
