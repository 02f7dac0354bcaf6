"""ByteArray, String and SimpleHeader converters: golden tables both ways and errors."""

import datetime as dt

import pytest

import converters
from smt.converter import ConverterError
from smt.data import Date, Schema, SchemaBuilder, Struct, Time, Timestamp
from smt.errors import ConfigError, Stage
from smt.plugin import PluginContext

UTC = dt.timezone.utc


class TestByteArray:
    @pytest.mark.parametrize("value", [b"", b"\x00\xff", None])
    def test_both_ways(self, value):
        converter = converters.load("bytearray")
        assert converter.from_connect_data("t", Schema.OPTIONAL_BYTES_SCHEMA, value) == value
        assert converter.to_connect_data("t", value) == (None, value)

    def test_rejects_non_bytes(self):
        with pytest.raises(Exception, match="ByteArrayConverter is not compatible with objects of type str"):
            converters.load("bytearray").from_connect_data("t", None, "text")


class TestString:
    @pytest.mark.parametrize(
        "value, data",
        [("héllo", "héllo".encode()), (42, b"42"), (True, b"true"), (1.5, b"1.5"), (1e7, b"1.0E7"), (None, None)],
    )
    def test_write_golden(self, value, data):
        assert converters.load("string").from_connect_data("t", None, value) == data

    @pytest.mark.parametrize("data, value", [(b"h\xc3\xa9llo", "héllo"), (b"", ""), (None, None)])
    def test_read_golden(self, data, value):
        converter = converters.load("string")
        assert converter.to_connect_data("t", data) == (None, value)
        assert converter.to_connect_batch(["t"], [data]) == (None, [value])

    def test_other_encoding(self):
        converter = converters.load("string", {"converter.encoding": "ISO-8859-1"})
        assert converter.from_connect_data("t", None, "é") == b"\xe9"
        assert converter.to_connect_data("t", b"\xe9") == (None, "é")

    def test_invalid_utf8_is_a_converter_error(self):
        with pytest.raises(
            ConverterError,
            match=r"StringConverter \(VALUE_CONVERTER\) failed on topic 'orders': "
            r"invalid UTF-8 at byte 2: invalid start byte",
        ) as info:
            converters.load("string").to_connect_data("orders", b"ab\xff")
        assert info.value.stage is Stage.VALUE_CONVERTER

    def test_invalid_utf8_in_a_batch_fails_only_that_row(self):
        errors = []
        _, values = converters.load("string", is_key=True).to_connect_batch(
            ["t", "t", "t"], [b"a", b"\xc3", b"c"], lambda row, exc: errors.append((row, str(exc)))
        )
        assert values == ["a", None, "c"]
        assert errors == [
            (
                1,
                "StringConverter (KEY_CONVERTER) failed on topic 't': "
                "invalid UTF-8 at byte 0: unexpected end of data in b'\\xc3'",
            )
        ]

    def test_batch_write_matches_single_and_reports_unencodable_rows(self):
        converter = converters.load("string", {"converter.encoding": "ascii"})
        errors = []
        out = converter.from_connect_batch(["t"] * 4, None, ["a", None, 7, "é"], lambda row, exc: errors.append(row))
        assert out == [b"a", None, b"7", None] and errors == [3]
        with pytest.raises(
            ConverterError,
            match=r"StringConverter \(VALUE_CONVERTER\) failed on topic 't': "
            r"cannot encode 'é' at character 0 as ascii",
        ):
            converter.from_connect_data("t", None, "é")
        assert converter.from_connect_batch(["t"] * 2, None, ["a", None]) == [b"a", None]

    def test_unknown_encoding_names_the_key(self):
        with pytest.raises(ConfigError, match="key.converter.converter.encoding: unknown character encoding 'klingon'"):
            converters.load("string", {"converter.encoding": "klingon"}, context=PluginContext(prefix="key.converter."))


HEADER_WRITE_GOLDEN = [
    (Schema.STRING_SCHEMA, "plain text", b"plain text"),
    (Schema.BOOLEAN_SCHEMA, True, b"true"),
    (Schema.INT32_SCHEMA, -7, b"-7"),
    (Schema.FLOAT64_SCHEMA, 2.5, b"2.5"),
    (Schema.BYTES_SCHEMA, b"\x00\x01", b"AAE="),
    (SchemaBuilder.array(Schema.STRING_SCHEMA).build(), ["a", "b"], b'["a","b"]'),
    (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(), {"a": 1}, b'{"a":1}'),
    (Date.SCHEMA, dt.date(2021, 3, 4), b"2021-03-04"),
    (Time.SCHEMA, dt.time(1, 2, 3, 4000), b"01:02:03.004Z"),
    (Timestamp.SCHEMA, dt.datetime(2021, 3, 4, 1, 2, 3, 4000, tzinfo=UTC), b"2021-03-04T01:02:03.004Z"),
    (None, None, None),
]


@pytest.mark.parametrize("schema, value, data", HEADER_WRITE_GOLDEN)
def test_header_write_golden(schema, value, data):
    assert (
        converters.load("org.apache.kafka.connect.storage.SimpleHeaderConverter").from_connect_header(
            "t", "h", schema, value
        )
        == data
    )


def test_header_struct_is_written_as_a_map():
    schema = SchemaBuilder.struct().field("a", Schema.STRING_SCHEMA).build()
    assert converters.load("simple").from_connect_header("t", "h", schema, Struct(schema).put("a", "x")) == b'{"a":"x"}'


HEADER_READ_GOLDEN = [
    (b"true", Schema.BOOLEAN_SCHEMA, True),
    (b"42", Schema.INT8_SCHEMA, 42),
    (b"40000", Schema.INT32_SCHEMA, 40000),
    (b"-9000000000", Schema.INT64_SCHEMA, -9000000000),
    (b"2.5", Schema.FLOAT32_SCHEMA, 2.5),
    (b'["a","b"]', SchemaBuilder.array(Schema.STRING_SCHEMA).build(), ["a", "b"]),
    (b'{"a":1}', SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(), {"a": 1}),
    (b"2021-03-04", Date.SCHEMA, dt.date(2021, 3, 4)),
    (b"01:02:03.004Z", Time.SCHEMA, dt.time(1, 2, 3, 4000)),
    (b"2021-03-04T01:02:03.004Z", Timestamp.SCHEMA, dt.datetime(2021, 3, 4, 1, 2, 3, 4000, tzinfo=UTC)),
    (b"plain text", Schema.STRING_SCHEMA, "plain text"),
    (b"", Schema.STRING_SCHEMA, ""),
    (b"\xff\xfe", Schema.BYTES_SCHEMA, b"\xff\xfe"),
    (None, None, None),
]


@pytest.mark.parametrize("data, schema, value", HEADER_READ_GOLDEN)
def test_header_read_golden(data, schema, value):
    assert converters.load("simple").to_connect_header("t", "h", data) == (schema, value)


def test_header_value_without_a_string_form():
    with pytest.raises(
        ConverterError,
        match=r"SimpleHeaderConverter \(HEADER_CONVERTER\) failed on topic 't': "
        r"header 'h': Failed to serialize unexpected value type object",
    ):
        converters.load("simple").from_connect_header("t", "h", None, object())
