"""Kafka Connect's number and boolean converters: golden bytes both ways, nulls, and Kafka's errors."""

from __future__ import annotations

import datetime as dt

import pytest

import converters
from smt.converter import ConverterError
from smt.data import Float32, Schema, SchemaBuilder, Timestamp
from smt.plugins import default_plugins

KAFKA = "org.apache.kafka.connect.converters."

# (converter, value, schema or None, exact bytes): Kafka's serializers' formats.
GOLDEN = {
    "short": ("ShortConverter", -2, None, b"\xff\xfe"),
    "short with schema": ("ShortConverter", 258, Schema.INT16_SCHEMA, b"\x01\x02"),
    "integer": ("IntegerConverter", 2**31 - 1, Schema.INT32_SCHEMA, b"\x7f\xff\xff\xff"),
    "long": ("LongConverter", -(2**63), None, b"\x80" + b"\x00" * 7),
    "long one": ("LongConverter", 1, Schema.OPTIONAL_INT64_SCHEMA, b"\x00" * 7 + b"\x01"),
    "float": ("FloatConverter", Float32(10.03), None, b"\x41\x20\x7a\xe1"),
    "float with schema": ("FloatConverter", 1.5, Schema.FLOAT32_SCHEMA, b"\x3f\xc0\x00\x00"),
    "double": ("DoubleConverter", -0.5, None, b"\xbf\xe0" + b"\x00" * 6),
    "boolean true": ("BooleanConverter", True, None, b"\x01"),
    "boolean false": ("BooleanConverter", False, Schema.BOOLEAN_SCHEMA, b"\x00"),
}
SCHEMAS = {
    "ShortConverter": Schema.OPTIONAL_INT16_SCHEMA,
    "IntegerConverter": Schema.OPTIONAL_INT32_SCHEMA,
    "LongConverter": Schema.OPTIONAL_INT64_SCHEMA,
    "FloatConverter": Schema.OPTIONAL_FLOAT32_SCHEMA,
    "DoubleConverter": Schema.OPTIONAL_FLOAT64_SCHEMA,
    "BooleanConverter": Schema.OPTIONAL_BOOLEAN_SCHEMA,
}


def load(name: str, is_key: bool = False):
    return converters.load(KAFKA + name, {}, is_key)


@pytest.mark.parametrize("name, value, schema, data", GOLDEN.values(), ids=GOLDEN.keys())
def test_writes_kafkas_bytes_and_reads_them_back_with_the_optional_schema(name, value, schema, data):
    converter = load(name)
    assert converter.from_connect_data("t", schema, value) == data
    assert converter.from_connect_column(["t"], None if schema is None else [schema], [value]) == [data]
    assert converter.to_connect_data("t", data) == (SCHEMAS[name], value)
    assert converter.to_connect_batch(["t"], [data]) == ([SCHEMAS[name]], [value])


def test_float_reads_as_float32_and_prints_as_java_prints_a_float():
    schema, value = load("FloatConverter").to_connect_data("t", b"\x41\x20\x7a\xe1")
    assert isinstance(value, Float32) and str(value) == "10.03"


@pytest.mark.parametrize("name", SCHEMAS)
def test_null_is_null_bytes_and_reads_as_a_null_of_the_schema(name):
    converter = load(name)
    assert converter.from_connect_data("t", None, None) is None
    assert converter.to_connect_data("t", None) == (SCHEMAS[name], None)
    assert converter.to_connect_batch(["t", "t"], [None, None]) == ([SCHEMAS[name]] * 2, [None, None])


@pytest.mark.parametrize("name", SCHEMAS)
def test_header_converter_too(name):
    value, schema, data = next((v, s, d) for n, v, s, d in GOLDEN.values() if n == name)
    converter = default_plugins().get("converter", KAFKA + name)()
    converter.configure({})
    assert converter.from_connect_header("t", "h", schema, value) == data
    assert converter.to_connect_header("t", "h", data) == (SCHEMAS[name], value)


# (converter, value, schema, Kafka's message)
WRITE_ERRORS = {
    "long of an int32": (
        "LongConverter",
        5,
        Schema.INT32_SCHEMA,
        "Failed to serialize to long (was class java.lang.Integer): "
        "class java.lang.Integer cannot be cast to class java.lang.Long",
    ),
    "long of a string": ("LongConverter", "5", None, "Failed to serialize to long (was class java.lang.String)"),
    "integer of a boolean": (
        "IntegerConverter",
        True,
        None,
        "Failed to serialize to integer (was class java.lang.Boolean)",
    ),
    "float of a double": ("FloatConverter", 1.5, None, "Failed to serialize to float (was class java.lang.Double)"),
    "double of a float": (
        "DoubleConverter",
        Float32(1.5),
        None,
        "Failed to serialize to double (was class java.lang.Float)",
    ),
    "short out of range": ("ShortConverter", 70000, None, "Failed to serialize to short: 70000 is out of range"),
    "boolean of an int32 schema": (
        "BooleanConverter",
        1,
        Schema.INT32_SCHEMA,
        "Invalid schema type for BooleanConverter: INT32",
    ),
    "boolean of a string": (
        "BooleanConverter",
        "true",
        None,
        "BooleanConverter is not compatible with objects of type class java.lang.String",
    ),
}


@pytest.mark.parametrize("name, value, schema, message", WRITE_ERRORS.values(), ids=WRITE_ERRORS.keys())
def test_write_errors_name_the_java_class_as_kafka_does(name, value, schema, message):
    with pytest.raises(
        ConverterError,
        match=rf"^{name} \(VALUE_CONVERTER\) failed on topic 't': "
        rf"{message.replace('(', '[(]').replace(')', '[)]')}",
    ):
        load(name).from_connect_data("t", schema, value)


def test_a_value_whose_schema_has_a_name_of_its_own_is_written_as_the_number_it_is():
    renamed = SchemaBuilder.int64().name("com.example.Renamed").build()
    assert load("LongConverter").from_connect_data("t", renamed, 7) == (7).to_bytes(8, "big")


def test_a_logical_value_is_refused_as_kafka_refuses_it():
    with pytest.raises(ConverterError, match=r"class java.util.Date cannot be cast to class java.lang.Long"):
        load("LongConverter").from_connect_data("t", Timestamp.SCHEMA, dt.datetime(2024, 1, 2))


# (converter, bytes, Kafka's message)
READ_ERRORS = {
    "long of 4 bytes": (
        "LongConverter",
        b"\x00" * 4,
        "Failed to deserialize long: Size of data received by LongDeserializer is not 8",
    ),
    "short of 3 bytes": (
        "ShortConverter",
        b"\x00" * 3,
        "Failed to deserialize short: Size of data received by ShortDeserializer is not 2",
    ),
    "float of 8 bytes": (
        "FloatConverter",
        b"\x00" * 8,
        "Failed to deserialize float: Size of data received by Deserializer is not 4",
    ),
    "boolean of 2": (
        "BooleanConverter",
        b"\x02",
        "Failed to deserialize boolean: Unexpected byte received by BooleanDeserializer: 2",
    ),
    "boolean of two bytes": (
        "BooleanConverter",
        b"\x00\x01",
        "Failed to deserialize boolean: Size of data received by BooleanDeserializer is not 1",
    ),
}


@pytest.mark.parametrize("name, data, message", READ_ERRORS.values(), ids=READ_ERRORS.keys())
def test_read_errors_are_kafkas(name, data, message):
    with pytest.raises(ConverterError, match=rf"^{name} \(KEY_CONVERTER\) failed on topic 't': {message}$"):
        load(name, is_key=True).to_connect_data("t", data)


def test_a_batch_reports_each_bad_row_and_keeps_the_rest():
    errors = []
    schemas, values = load("IntegerConverter").to_connect_batch(
        ["t"] * 3, [b"\x00\x00\x00\x07", b"\x01", None], lambda row, exc: errors.append(row)
    )
    assert (values, errors) == ([7, None, None], [1])
    written = load("IntegerConverter").from_connect_batch(
        ["t"] * 3, None, [1, 2**40, 3], lambda row, exc: errors.append(row)
    )
    assert written == [b"\x00\x00\x00\x01", None, b"\x00\x00\x00\x03"] and errors == [1, 1]


def test_short_names_and_kafka_class_names_are_registered():
    plugins = default_plugins()
    for short, kafka in (
        ("short", "ShortConverter"),
        ("integer", "IntegerConverter"),
        ("long", "LongConverter"),
        ("float", "FloatConverter"),
        ("double", "DoubleConverter"),
        ("boolean", "BooleanConverter"),
    ):
        assert plugins.get("converter", short) is plugins.get("converter", KAFKA + kafka)
