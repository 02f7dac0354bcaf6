"""MaskField, with the cases of Kafka's MaskFieldTest."""

import datetime as dt
import decimal

import pytest

from smt.data import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp
from smt.errors import ConfigError, DataError
from smt.transforms.mask_field import MaskFieldKey, MaskFieldValue
from tests.smt.transforms._helpers import conf, make_record

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
NOW = dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)

SCHEMA = (
    SchemaBuilder.struct()
    .field("magic", Schema.INT32_SCHEMA)
    .field("bool", Schema.BOOLEAN_SCHEMA)
    .field("byte", Schema.INT8_SCHEMA)
    .field("short", Schema.INT16_SCHEMA)
    .field("int", Schema.INT32_SCHEMA)
    .field("long", Schema.INT64_SCHEMA)
    .field("float", Schema.FLOAT32_SCHEMA)
    .field("double", Schema.FLOAT64_SCHEMA)
    .field("string", Schema.STRING_SCHEMA)
    .field("date", Date.SCHEMA)
    .field("time", Time.SCHEMA)
    .field("timestamp", Timestamp.SCHEMA)
    .field("decimal", Decimal.schema(0))
    .field("array", SchemaBuilder.array(Schema.INT32_SCHEMA))
    .field("map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA))
    .field("withDefault", SchemaBuilder.string().optional().default_value("default").build())
    .build()
)

VALUES = {
    "magic": 42,
    "bool": True,
    "byte": 42,
    "short": 42,
    "int": 42,
    "long": 42,
    "float": 42.0,
    "double": 42.0,
    "string": "55.121.20.20",
    "date": NOW,
    "bigdec": decimal.Decimal("42.0"),
    "list": [42],
    "map": {"key": "value"},
}


def struct_values():
    struct = Struct(SCHEMA)
    for name, value in {
        "magic": 42,
        "bool": True,
        "byte": 42,
        "short": 42,
        "int": 42,
        "long": 42,
        "float": 42.0,
        "double": 42.0,
        "string": "hmm",
        "date": dt.date(2024, 5, 6),
        "time": dt.time(7, 8, 9),
        "timestamp": NOW,
        "decimal": decimal.Decimal(42),
        "array": [1, 2, 3],
        "map": {"what": "what"},
        "withDefault": None,
    }.items():
        struct.put(name, value)
    return struct


def transform(fields, replacement=None):
    props = {"fields": ",".join(fields), "replace.null.with.default": "false"}
    if replacement is not None:
        props["replacement"] = replacement
    return conf(MaskFieldValue, props)


def test_schemaless():
    out = transform([n for n in VALUES if n != "magic"]).apply(make_record(VALUES)).value
    assert out == {
        "magic": 42,
        "bool": False,
        "byte": 0,
        "short": 0,
        "int": 0,
        "long": 0,
        "float": 0.0,
        "double": 0.0,
        "string": "",
        "date": EPOCH,
        "bigdec": decimal.Decimal(0),
        "list": [],
        "map": {},
    }


def test_with_schema():
    out = (
        transform([f.name for f in SCHEMA.fields if f.name != "magic"])
        .apply(make_record(struct_values(), value_schema=SCHEMA))
        .value
    )
    expected = {
        "magic": 42,
        "bool": False,
        "byte": 0,
        "short": 0,
        "int": 0,
        "long": 0,
        "float": 0.0,
        "double": 0.0,
        "string": "",
        "date": dt.date(1970, 1, 1),
        "time": dt.time(0),
        "timestamp": EPOCH,
        "decimal": decimal.Decimal(0),
        "array": [],
        "map": {},
    }
    assert {name: out.get(name) for name in expected} == expected
    assert out.get_without_default("withDefault") is None


@pytest.mark.parametrize(
    "field, replacement, expected",
    [
        ("short", "123", 123),
        ("byte", "123", 123),
        ("int", "123", 123),
        ("long", "123", 123),
        ("float", "123.0", 123.0),
        ("double", "123.0", 123.0),
        ("string", "123", "123"),
        ("bigdec", "123.0", decimal.Decimal("123.0")),
    ],
)
def test_schemaless_with_replacement(field, replacement, expected):
    assert transform([field], replacement).apply(make_record(VALUES)).value[field] == expected


@pytest.mark.parametrize(
    "fields, replacement",
    [
        (["date"], "2024"),
        (["int", "date"], "2024"),
        (["bool"], "false"),
        (["list"], "123"),
        (["map"], "123"),
    ],
)
def test_schemaless_unsupported_replacement_type(fields, replacement):
    with pytest.raises(DataError, match="Cannot mask value of type .* with custom replacement."):
        transform(fields, replacement).apply(make_record(VALUES))


@pytest.mark.parametrize(
    "field, replacement, expected",
    [
        ("short", "123", 123),
        ("byte", "123", 123),
        ("int", "123", 123),
        ("long", "123", 123),
        ("float", "123.0", 123.0),
        ("double", "123.0", 123.0),
        ("string", "123", "123"),
        ("decimal", "123.0", decimal.Decimal("123.0")),
    ],
)
def test_with_schema_and_replacement(field, replacement, expected):
    out = transform([field], replacement).apply(make_record(struct_values(), value_schema=SCHEMA))
    assert out.value.get(field) == expected


@pytest.mark.parametrize("field", ["time", "timestamp", "array"])
def test_with_schema_unsupported_replacement_type(field):
    with pytest.raises(DataError, match="Cannot mask value of type .* with custom replacement."):
        transform([field], "123").apply(make_record(struct_values(), value_schema=SCHEMA))


@pytest.mark.parametrize(
    "fields", [["byte"], ["short"], ["int"], ["long"], ["float"], ["double"], ["bigdec"], ["string", "int"]]
)
def test_replacement_type_mismatch(fields):
    with pytest.raises(DataError, match=r"Unable to convert foo \(str\) to number"):
        transform(fields, "foo").apply(make_record(VALUES))


def test_empty_string_replacement_is_a_config_error():
    with pytest.raises(ConfigError, match="transforms.t.replacement: String must be non-empty"):
        transform(["short"], "")


def test_null_list_and_map_replacements_are_fresh_and_mutable():
    xform = transform(["array", "map"])
    first = xform.apply(make_record(struct_values(), value_schema=SCHEMA)).value
    first.get("array").append(0)
    first.get("map")["k"] = "v"
    second = xform.apply(make_record(struct_values(), value_schema=SCHEMA)).value
    assert (second.get("array"), second.get("map")) == ([], {})


# --- beyond Kafka ------------------------------------------------------------------------------


def test_absent_schemaless_field_becomes_null_as_in_kafka():
    assert transform(["missing"]).apply(make_record({"a": 1})).value == {"a": 1, "missing": None}


def test_tombstone_passes_through():
    assert transform(["a"]).apply(make_record(None)).value is None
    assert conf(MaskFieldKey, {"fields": "a"}).apply(make_record({"a": 1}, key=None)).key is None


def test_nested_paths_v2():
    xform = conf(MaskFieldValue, {"fields": "card.number,name", "field.syntax.version": "V2"})
    value = {"card": {"number": "4111", "cvv": 1}, "name": "x"}
    assert xform.apply(make_record(value)).value == {"card": {"number": "", "cvv": 1}, "name": ""}
    assert value["card"]["number"] == "4111"


def test_bytes_cannot_be_masked():
    with pytest.raises(DataError, match="Cannot mask value of type: bytes"):
        transform(["b"]).apply(make_record({"b": b"x"}))
