"""Values: parse_string (Kafka's Values.parseString), infer_schema, convert_to_string."""

import datetime as dt
import decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smt.data import (
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
    convert_to_string,
    infer_schema,
    parse_string,
    validate_value,
)

UTC = dt.timezone.utc

PARSE_GOLDEN = [
    ("", Schema.STRING_SCHEMA, ""),
    ("true", Schema.BOOLEAN_SCHEMA, True),
    ("  false  ", Schema.BOOLEAN_SCHEMA, False),
    ("1", Schema.INT8_SCHEMA, 1),
    ("-128", Schema.INT8_SCHEMA, -128),
    ("128", Schema.INT16_SCHEMA, 128),
    ("300.0", Schema.INT16_SCHEMA, 300),
    ("66000.0", Schema.INT32_SCHEMA, 66000),
    ("3000000000", Schema.INT64_SCHEMA, 3000000000),
    ("1.0", Schema.INT8_SCHEMA, 1),
    ("1.1", Schema.FLOAT32_SCHEMA, 1.1),
    ("1e40", Schema.FLOAT64_SCHEMA, 1e40),
    ("99999999999999999999", Decimal.schema(0), decimal.Decimal("99999999999999999999")),
    ("hello world", Schema.STRING_SCHEMA, "hello world"),
    ("true}", Schema.STRING_SCHEMA, "true}"),
    ("false]", Schema.STRING_SCHEMA, "false]"),
    ("null=", Schema.STRING_SCHEMA, "null="),
    ("{foo: 3}", Schema.STRING_SCHEMA, "{foo: 3}"),
    ("{3: foo}", Schema.STRING_SCHEMA, "{3: foo}"),
    ("[foo]", Schema.STRING_SCHEMA, "[foo]"),
    ("[0 1 2]", Schema.STRING_SCHEMA, "[0 1 2]"),
    ("{6:9 4:20}", Schema.STRING_SCHEMA, "{6:9 4:20}"),
    ("{null: 3}", Schema.STRING_SCHEMA, "{null: 3}"),
    ("[1, 2, 3,,,]", Schema.STRING_SCHEMA, "[1, 2, 3,,,]"),
    ("1,2", Schema.STRING_SCHEMA, "1,2"),
    ("[true, false]", SchemaBuilder.array(Schema.BOOLEAN_SCHEMA).build(), [True, False]),
    ("[1, 300, 70000]", SchemaBuilder.array(Schema.INT32_SCHEMA).build(), [1, 300, 70000]),
    ("[1, 2.5]", SchemaBuilder.array(Schema.FLOAT32_SCHEMA).build(), [1.0, 2.5]),
    ('["a", "b"]', SchemaBuilder.array(Schema.STRING_SCHEMA).build(), ["a", "b"]),
    ('{"a": 1, "b": 2}', SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(), {"a": 1, "b": 2}),
    (
        "{true: false, false: true}",
        SchemaBuilder.map(Schema.BOOLEAN_SCHEMA, Schema.BOOLEAN_SCHEMA).build(),
        {True: False, False: True},
    ),
    ("2020-02-29", Date.SCHEMA, dt.date(2020, 2, 29)),
    ("12:34:56.789Z", Time.SCHEMA, dt.time(12, 34, 56, 789000)),
    ("2020-02-29T12:34:56.789Z", Timestamp.SCHEMA, dt.datetime(2020, 2, 29, 12, 34, 56, 789000, tzinfo=UTC)),
    ('["2020-02-29"]', SchemaBuilder.array(Date.SCHEMA).build(), [dt.date(2020, 2, 29)]),
    ("2020-02-30", Schema.STRING_SCHEMA, "2020-02-30"),
    ("[1, null]", SchemaBuilder.array(Schema.OPTIONAL_INT8_SCHEMA).build(), [1, None]),
    (
        '{"a": null, "b": 1}',
        SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT8_SCHEMA).build(),
        {"a": None, "b": 1},
    ),
]


@pytest.mark.parametrize("text, schema, value", PARSE_GOLDEN)
def test_parse_string_golden(text, schema, value):
    assert parse_string(text) == (schema, value)


def test_parse_null():
    assert parse_string("null") == (None, None)
    assert parse_string(" null ") == (None, None)
    assert parse_string(None) == (None, None)


@pytest.mark.parametrize(
    "text, value",
    [("[]", []), ("{}", {}), ("[null]", [None]), ("[[]]", [[]])],
)
def test_parse_empty_and_null_containers(text, value):
    schema, parsed = parse_string(text)
    assert schema.type in (Type.ARRAY, Type.MAP)
    assert parsed == value


def test_parse_map_with_null_values_keeps_key_schema():
    schema, value = parse_string("{3: null}")
    assert schema.key_schema == Schema.INT8_SCHEMA and schema.value_schema is None
    assert value == {3: None}


def test_parse_mixed_array_has_no_element_schema():
    schema, value = parse_string('[1, "a"]')
    assert schema.type is Type.ARRAY and schema.value_schema is None
    assert value == [1, "a"]


def test_parse_quoted_string_unescapes():
    assert parse_string(r'["a\"b"]') == (SchemaBuilder.array(Schema.STRING_SCHEMA).build(), ['a"b'])


INFER_GOLDEN = [
    ("x", Schema.STRING_SCHEMA),
    (True, Schema.BOOLEAN_SCHEMA),
    (5, Schema.INT64_SCHEMA),
    (1.5, Schema.FLOAT64_SCHEMA),
    (b"x", Schema.BYTES_SCHEMA),
    (decimal.Decimal("1.25"), Decimal.schema(2)),
    (dt.date(2020, 1, 1), Date.SCHEMA),
    (dt.datetime(2020, 1, 1, tzinfo=UTC), Timestamp.SCHEMA),
    (dt.time(1, 2), Time.SCHEMA),
    (["a", None], SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build()),
    ({"a": 1}, SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build()),
    ([], None),
    ([1, "a"], None),
    (object(), None),
]


@pytest.mark.parametrize("value, schema", INFER_GOLDEN)
def test_infer_schema(value, schema):
    assert infer_schema(value) == schema


def test_infer_struct_schema():
    schema = SchemaBuilder.struct().field("a", Schema.STRING_SCHEMA).build()
    assert infer_schema(Struct(schema).put("a", "x")) is schema


TO_STRING_GOLDEN = [
    ("plain", "plain"),
    (True, "true"),
    (42, "42"),
    (1.5, "1.5"),
    (decimal.Decimal("1.50"), "1.50"),
    (b"\x00\x01", "AAE="),
    ([1, "a", None, True], '[1,"a",null,true]'),
    ({"k": 'q"uote'}, '{"k":"q\\"uote"}'),
    (dt.date(2020, 2, 29), "2020-02-29"),
    (dt.time(12, 34, 56, 789000), "12:34:56.789Z"),
    (dt.datetime(2020, 2, 29, 12, 34, 56, 789000, tzinfo=UTC), "2020-02-29T12:34:56.789Z"),
]


@pytest.mark.parametrize("value, text", TO_STRING_GOLDEN)
def test_convert_to_string(value, text):
    assert convert_to_string(None, value) == text


@pytest.mark.parametrize(
    "value, text",
    [
        (1.5, "1.5"),
        (100.0, "100.0"),
        (0.001, "0.001"),
        (9999999.0, "9999999.0"),
        (1e7, "1.0E7"),
        (1.25e-5, "1.25E-5"),
        (-3.4e38, "-3.4E38"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (123456789.125, "1.23456789125E8"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
    ],
)
def test_doubles_print_as_java_does(value, text):
    assert convert_to_string(None, value) == text


def test_convert_struct_to_string():
    schema = SchemaBuilder.struct().field("a", Schema.STRING_SCHEMA).field("b", Schema.OPTIONAL_INT8_SCHEMA).build()
    assert convert_to_string(schema, Struct(schema).put("a", "x")) == '{"a":"x","b":null}'


@pytest.mark.parametrize(
    "value",
    ["hello", "true", 7, 300, [1, 2], {"a": "b"}, dt.date(2021, 5, 6), dt.time(1, 2, 3, 4000)],
)
def test_string_form_parses_back(value):
    text = convert_to_string(None, value)
    assert parse_string(text)[1] == (value if value != "true" else True)


LITERAL_PIECES = st.sampled_from(
    ["[", "]", "{", "}", ",", ":", '"', "\\", "true", "null", "1", "-2.5", " ", "2020-01-01", "12:00:00.000Z", "x"]
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=40), st.lists(LITERAL_PIECES, max_size=12).map("".join)))
def test_parse_string_never_raises_and_its_value_fits_its_schema(text):
    schema, value = parse_string(text)
    if schema is None:
        assert value is None
    elif schema.type in (Type.ARRAY, Type.MAP) and (
        schema.value_schema is None or (schema.type is Type.MAP and schema.key_schema is None)
    ):
        assert isinstance(value, (list, dict))  # no common element type: nothing to validate against
    else:
        validate_value(schema, value)
