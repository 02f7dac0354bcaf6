"""Kafka's unit-test cases for the remaining SMTs, as tables (inputs, outputs, messages)."""

import datetime as dt

import pytest

from smt.data import Date, Schema, SchemaBuilder, Struct, Time, Timestamp
from smt.errors import ConfigError, DataError
from smt.plugins import default_plugins
from smt.transforms.drop_headers import DropHeaders
from smt.transforms.extract_field import ExtractFieldKey, ExtractFieldValue
from smt.transforms.filter import Filter
from smt.transforms.hoist_field import HoistFieldKey
from smt.transforms.insert_header import InsertHeader
from smt.transforms.mask_field import MaskFieldValue
from smt.transforms.regex_router import RegexRouter
from smt.transforms.replace_field import ReplaceFieldValue
from smt.transforms.set_schema_metadata import SetSchemaMetadataValue
from smt.transforms.timestamp_router import TimestampRouter
from smt.transforms.value_to_key import ValueToKey
from tests.smt.transforms._helpers import conf, make_record

UTC = dt.timezone.utc
DATE_PLUS_TIME = dt.datetime(1970, 1, 2, 0, 0, 1, 234000, tzinfo=UTC)
STRING_FMT = "yyyy MM dd HH mm ss SSS z"

# --- RegexRouterTest ----------------------------------------------------------------
REGEX_CASES = [
    ("", "", "", ""),
    ("foo", "bar", "foo", "bar"),
    ("foo", "bar", "orig", "orig"),
    ("(.*)STAGING(.*)", "$1PROD$2", "myTopicSTAGINGfoo", "myTopicPRODfoo"),
    ("(.*)STAGING(.*)", "$1PROD$2", "STAGING", "PROD"),
    ("(.*)STAGING", "$1PROD", "somethingSTAGING", "somethingPROD"),
    ("foo(.*)", "bar$1", "foobar", "barbar"),
    ("(.*)foo(.*)", "$1bar$2", "foo", "bar"),
]


@pytest.mark.parametrize("regex, replacement, topic, expected", REGEX_CASES)
def test_regex_router(regex, replacement, topic, expected):
    router = conf(RegexRouter, {"regex": regex, "replacement": replacement})
    assert router.apply(make_record(topic=topic)).topic == expected


# --- TimestampRouterTest -----------------------------------------------------------------


def test_timestamp_router_default_configuration():
    assert conf(TimestampRouter, {}).apply(make_record(topic="test", timestamp=1483425001864)).topic == "test-20170103"


def test_timestamp_router_null_timestamp_is_an_error():
    with pytest.raises(DataError, match="Timestamp missing on record"):
        conf(TimestampRouter, {}).apply(make_record(topic="test", timestamp=None))


# --- ExtractFieldTest --------------------------------------------------------------------


@pytest.mark.parametrize("props, key, expected", [
    ({"field": "magic"}, {"magic": 42}, 42),
    ({"field": "magic.foo", "field.syntax.version": "V2"}, {"magic": {"foo": 42}}, 42),
    ({"field": "nonexistent"}, {"magic": 42}, None),
    ({"field": "magic.nonexistent", "field.syntax.version": "V2"}, {"magic": {"foo": 42}}, None),
    ({"field": "magic"}, None, None),
])
def test_extract_field_schemaless(props, key, expected):
    out = conf(ExtractFieldKey, props).apply(make_record(key=key))
    assert out.key == expected and out.key_schema is None


def test_extract_field_with_schema_and_nested():
    inner = SchemaBuilder.struct().field("foo", Schema.INT32_SCHEMA).build()
    schema = SchemaBuilder.struct().field("magic", inner).build()
    key = Struct(schema).put("magic", Struct(inner).put("foo", 42))
    out = conf(ExtractFieldKey, {"field": "magic.foo", "field.syntax.version": "V2"}).apply(
        make_record(key=key, key_schema=schema))
    assert (out.key_schema, out.key) == (Schema.INT32_SCHEMA, 42)


def test_extract_field_unknown_field_with_schema():
    schema = SchemaBuilder.struct().field("magic", Schema.INT32_SCHEMA).build()
    with pytest.raises(DataError, match="Unknown field: nonexistent"):
        conf(ExtractFieldKey, {"field": "nonexistent"}).apply(
            make_record(key=Struct(schema).put("magic", 42), key_schema=schema))


def test_extract_field_non_map_schemaless():
    with pytest.raises(DataError, match=r"Only Map objects supported in absence of schema for \[field extraction\], found: int"):
        conf(ExtractFieldValue, {"field": "x"}).apply(make_record(42))


# --- HoistFieldTest ------------------------------------------------------------------------


def test_hoist_field():
    assert conf(HoistFieldKey, {"field": "magic"}).apply(make_record(key=42)).key == {"magic": 42}
    out = conf(HoistFieldKey, {"field": "magic"}).apply(make_record(key=42, key_schema=Schema.INT32_SCHEMA))
    assert out.key_schema == SchemaBuilder.struct().field("magic", Schema.INT32_SCHEMA).build()
    assert out.key.get("magic") == 42
    assert conf(HoistFieldKey, {"field": "magic"}).apply(make_record(key=None)).key == {"magic": None}


# --- ValueToKeyTest ------------------------------------------------------------------------


def test_value_to_key_schemaless():
    out = conf(ValueToKey, {"fields": "a,b"}).apply(make_record({"a": 1, "b": 2, "c": 3}))
    assert out.key == {"a": 1, "b": 2}


def test_value_to_key_with_schema_and_missing_field():
    schema = (SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).field("b", Schema.INT32_SCHEMA)
              .field("c", Schema.INT32_SCHEMA).build())
    value = Struct(schema).put("a", 1).put("b", 2).put("c", 3)
    out = conf(ValueToKey, {"fields": "a,b"}).apply(make_record(value, value_schema=schema))
    assert out.key_schema == SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).field("b", Schema.INT32_SCHEMA).build()
    assert (out.key.get("a"), out.key.get("b")) == (1, 2)
    with pytest.raises(DataError, match="Field does not exist: not_exist"):
        conf(ValueToKey, {"fields": "not_exist"}).apply(make_record(value, value_schema=schema))


# --- DropHeadersTest / InsertHeaderTest -------------------------------------


@pytest.mark.parametrize("drop, headers, expected", [
    ("dropMe", [("dropMe", "a"), ("keep", "b"), ("dropMe", "c")], [("keep", "b")]),
    ("dropMe,dropMeToo", [("dropMe", 1), ("dropMeToo", 2), ("keep", 3)], [("keep", 3)]),
    ("dropMe", [("keep", 1)], [("keep", 1)]),
    ("dropMe", [], []),
])
def test_drop_headers(drop, headers, expected):
    out = conf(DropHeaders, {"headers": drop}).apply(make_record(headers=tuple(headers)))
    assert list(out.headers) == expected


def test_drop_headers_config_error():
    with pytest.raises(ConfigError, match="transforms.t.headers: must be a non-empty list"):
        conf(DropHeaders, {"headers": ""})


@pytest.mark.parametrize("literal, expected", [("inserted", "inserted"), ("42", 42), ("true", True)])
def test_insert_header(literal, expected):
    out = conf(InsertHeader, {"header": "inserted", "value.literal": literal}).apply(
        make_record(headers=(("existing", "x"),)))
    assert list(out.headers) == [("existing", "x"), ("inserted", expected)]


# --- SetSchemaMetadataTest -------------------------------------------------------------------


def test_set_schema_metadata():
    schema = SchemaBuilder.struct().field("f", Schema.INT32_SCHEMA).build()
    out = conf(SetSchemaMetadataValue, {"schema.name": "foo", "schema.version": "42"}).apply(
        make_record(Struct(schema).put("f", 1), value_schema=schema))
    assert (out.value_schema.name, out.value_schema.version) == ("foo", 42)
    assert out.value.schema is out.value_schema and out.value.get("f") == 1
    with pytest.raises(ConfigError, match="Neither schema name nor version configured"):
        conf(SetSchemaMetadataValue, {})
    with pytest.raises(DataError, match=r"Schema required for \[updating schema metadata\]"):
        conf(SetSchemaMetadataValue, {"schema.name": "x"}).apply(make_record({"a": 1}))


# --- MaskFieldTest (replacement rules) --------------------------------------------------------


@pytest.mark.parametrize("field, replacement, expected", [
    ("int", "123", 123), ("float", "123", 123.0), ("string", "123", "123"),
])
def test_mask_field_replacement(field, replacement, expected):
    value = {"int": 42, "float": 42.0, "string": "s", "bool": True, "list": [1], "date": dt.date.today()}
    xform = conf(MaskFieldValue, {"fields": field, "replacement": replacement})
    assert xform.apply(make_record(value)).value[field] == expected


@pytest.mark.parametrize("field, replacement, message", [
    ("bool", "false", "Cannot mask value of type bool with custom replacement."),
    ("list", "123", "Cannot mask value of type list with custom replacement."),
    ("date", "123", "Cannot mask value of type date with custom replacement."),
    ("int", "foo", r"Unable to convert foo \(str\) to number"),
])
def test_mask_field_replacement_errors(field, replacement, message):
    value = {"int": 42, "bool": True, "list": [1], "date": dt.date.today()}
    with pytest.raises(DataError, match=message):
        conf(MaskFieldValue, {"fields": field, "replacement": replacement}).apply(make_record(value))


def test_mask_field_empty_replacement_is_a_config_error():
    with pytest.raises(ConfigError, match="transforms.t.replacement: String must be non-empty"):
        conf(MaskFieldValue, {"fields": "a", "replacement": ""})


# --- ReplaceFieldTest ---------------------------------------------------------------------------


def test_replace_field_schemaless_and_with_schema():
    out = conf(ReplaceFieldValue, {"exclude": "dont", "renames": "abc:xyz,foo:bar"}).apply(
        make_record({"dont": "whatever", "abc": 42, "foo": True, "etc": "etc"}))
    assert out.value == {"xyz": 42, "bar": True, "etc": "etc"}
    schema = (SchemaBuilder.struct().field("dont", Schema.STRING_SCHEMA).field("abc", Schema.INT32_SCHEMA)
              .field("foo", Schema.BOOLEAN_SCHEMA).field("etc", Schema.STRING_SCHEMA).build())
    value = Struct(schema).put("dont", "w").put("abc", 42).put("foo", True).put("etc", "etc")
    out = conf(ReplaceFieldValue, {"include": "abc,foo", "renames": "abc:xyz,foo:bar"}).apply(
        make_record(value, value_schema=schema))
    assert [f.name for f in out.value_schema.fields] == ["xyz", "bar"]
    assert (out.value.get("xyz"), out.value.get("bar")) == (42, True)
    assert conf(ReplaceFieldValue, {"include": "abc"}).apply(make_record(None)).value is None


def test_filter_drops():
    assert conf(Filter, {}).apply(make_record({"a": 1})) is None


# --- registration ----------------------------------------------------------------------------------

KAFKA_NAMES = [
    "Cast$Key", "Cast$Value", "DropHeaders", "ExtractField$Key", "ExtractField$Value", "Filter",
    "Flatten$Key", "Flatten$Value", "HeaderFrom$Key", "HeaderFrom$Value", "HoistField$Key",
    "HoistField$Value", "InsertField$Key", "InsertField$Value", "InsertHeader", "MaskField$Key",
    "MaskField$Value", "RegexRouter", "ReplaceField$Key", "ReplaceField$Value",
    "SetSchemaMetadata$Key", "SetSchemaMetadata$Value", "TimestampConverter$Key",
    "TimestampConverter$Value", "TimestampRouter", "ValueToKey",
]


@pytest.mark.parametrize("name", KAFKA_NAMES)
def test_registered_by_short_and_kafka_class_name(name):
    plugins = default_plugins()
    cls = plugins.get("transform", name)
    assert plugins.get("transform", "org.apache.kafka.connect.transforms." + name) is cls
    assert cls.overview()
