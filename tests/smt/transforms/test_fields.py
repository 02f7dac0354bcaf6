"""ExtractField, HoistField and ValueToKey, with the cases of their Kafka tests."""

import pytest

from smt.data import Schema, SchemaBuilder, Struct, Type
from smt.errors import ConfigError, DataError
from smt.transforms.extract_field import ExtractFieldKey, ExtractFieldValue
from smt.transforms.hoist_field import HoistFieldKey, HoistFieldValue
from smt.transforms.value_to_key import ValueToKey
from tests.smt.transforms._helpers import conf, make_record

V2 = {"field.syntax.version": "V2"}
FOO = SchemaBuilder.struct().field("foo", Schema.INT32_SCHEMA).build()
NESTED = SchemaBuilder.struct().field("magic", FOO).build()
NESTED_KEY = Struct(NESTED).put("magic", Struct(FOO).put("foo", 42))
FLAT = SchemaBuilder.struct().field("magic", Schema.INT32_SCHEMA).build()
DEFAULTED = (
    SchemaBuilder.struct()
    .field("optional_with_default", SchemaBuilder.int32().optional().default_value(42).build())
    .build()
)

# --- ExtractFieldTest ----------------------------------------------------------------------

SCHEMALESS_EXTRACT = [  # (props, key, extracted)
    ({"field": "magic"}, {"magic": 42}, 42),  # schemaless
    ({"field": "magic.foo", **V2}, {"magic": {"foo": 42}}, 42),  # schemalessAndNestedPath
    ({"field": "magic"}, None, None),  # nullSchemaless
    ({"field": "nonexistent"}, {"magic": 42}, None),  # nonExistentFieldSchemalessShouldReturnNull
    ({"field": "magic.nonexistent", **V2}, {"magic": {"foo": 42}}, None),  # nonExistentNestedFieldSchemaless...
    ({"field": "magic.foo"}, {"magic.foo": 1, "magic": {"foo": 2}}, 1),  # V1 takes dots literally
]


@pytest.mark.parametrize("props, key, expected", SCHEMALESS_EXTRACT)
def test_extract_schemaless(props, key, expected):
    out = conf(ExtractFieldKey, props).apply(make_record(key=key))
    assert out.key_schema is None and out.key == expected


@pytest.mark.parametrize(
    "props, schema, key, expected",
    [
        ({"field": "magic"}, FLAT, Struct(FLAT).put("magic", 42), 42),  # withSchema
        ({"field": "magic.foo", **V2}, NESTED, NESTED_KEY, 42),  # withSchemaAndNestedPath
        ({"field": "magic"}, SchemaBuilder.struct().field("magic", Schema.INT32_SCHEMA).optional().build(), None, None),
    ],
)
def test_extract_with_schema(props, schema, key, expected):
    out = conf(ExtractFieldKey, props).apply(make_record(key=key, key_schema=schema))
    assert out.key_schema == Schema.INT32_SCHEMA and out.key == expected


@pytest.mark.parametrize(
    "props, schema, key, message",
    [
        ({"field": "nonexistent"}, FLAT, Struct(FLAT).put("magic", 42), "Unknown field: nonexistent"),
        ({"field": "magic.nonexistent", **V2}, NESTED, NESTED_KEY, "Unknown field: magic.nonexistent"),
    ],
)
def test_extract_unknown_field_with_schema(props, schema, key, message):
    with pytest.raises(DataError, match=message):
        conf(ExtractFieldKey, props).apply(make_record(key=key, key_schema=schema))


@pytest.mark.parametrize("cls", [ExtractFieldKey, ExtractFieldValue])
@pytest.mark.parametrize("replace_null_with_default, expected", [("false", None), ("true", 42)])
def test_extract_unset_optional(cls, replace_null_with_default, expected):
    xform = conf(cls, {"field": "optional_with_default", "replace.null.with.default": replace_null_with_default})
    struct = Struct(DEFAULTED).put("optional_with_default", None)
    record = (
        make_record(key=struct, key_schema=DEFAULTED)
        if cls is ExtractFieldKey
        else make_record(struct, value_schema=DEFAULTED)
    )
    out = xform.apply(record)
    assert (out.key if cls is ExtractFieldKey else out.value) == expected


def test_extract_config_errors():
    with pytest.raises(ConfigError, match="transforms.t.field: is required"):
        conf(ExtractFieldKey, {})
    with pytest.raises(ConfigError, match=r"Incomplete backtick pair in path: \[`a\]"):
        conf(ExtractFieldKey, {"field": "`a", **V2})


def test_extract_non_map_schemaless():
    with pytest.raises(
        DataError, match=r"Only Map objects supported in absence of schema for \[field extraction\], found: int"
    ):
        conf(ExtractFieldValue, {"field": "x"}).apply(make_record(42))


# --- HoistFieldTest --------------------------------------------------------------------------


def test_hoist_schemaless():
    out = conf(HoistFieldKey, {"field": "magic"}).apply(make_record(key=42))
    assert out.key_schema is None and out.key == {"magic": 42}
    out.key["k"] = "v"  # the map is an ordinary, mutable dict
    assert out.key == {"magic": 42, "k": "v"}


def test_hoist_with_schema():
    xform = conf(HoistFieldKey, {"field": "magic"})
    out = xform.apply(make_record(key=42, key_schema=Schema.INT32_SCHEMA))
    assert out.key_schema.type is Type.STRUCT and out.key_schema.field("magic").schema == Schema.INT32_SCHEMA
    assert out.key.get("magic") == 42
    again = xform.apply(make_record(key=7, key_schema=Schema.INT32_SCHEMA))
    assert again.key_schema is out.key_schema and xform.schema_cache.misses == 1


def test_hoist_tombstones():
    xform = conf(HoistFieldValue, {"field": "wrapped"})
    assert xform.apply(make_record(None)).value == {"wrapped": None}
    required = make_record(None, value_schema=Schema.INT32_SCHEMA)
    assert xform.apply(required) == required
    out = xform.apply(make_record(None, value_schema=Schema.OPTIONAL_INT32_SCHEMA))
    assert out.value.get("wrapped") is None and out.value_schema.field("wrapped").schema == Schema.OPTIONAL_INT32_SCHEMA


# --- ValueToKeyTest ------------------------------------------------------------------------------

ABC = (
    SchemaBuilder.struct()
    .field("a", Schema.INT32_SCHEMA)
    .field("b", Schema.INT32_SCHEMA)
    .field("c", Schema.INT32_SCHEMA)
    .build()
)


def test_value_to_key_schemaless():
    out = conf(ValueToKey, {"fields": "a,b"}).apply(make_record({"a": 1, "b": 2, "c": 3}))
    assert out.key_schema is None and out.key == {"a": 1, "b": 2}


def test_value_to_key_with_schema():
    out = conf(ValueToKey, {"fields": "a,b"}).apply(
        make_record(Struct(ABC).put("a", 1).put("b", 2).put("c", 3), value_schema=ABC)
    )
    expected = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).field("b", Schema.INT32_SCHEMA).build()
    assert out.key_schema == expected and out.key == Struct(expected).put("a", 1).put("b", 2)


def test_value_to_key_non_existing_field():
    schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()
    with pytest.raises(DataError, match="^Field does not exist: not_exist$"):
        conf(ValueToKey, {"fields": "not_exist"}).apply(make_record(Struct(schema).put("a", 1), value_schema=schema))


@pytest.mark.parametrize("replace_null_with_default, expected", [("false", None), ("true", 42)])
def test_value_to_key_replace_null_with_default(replace_null_with_default, expected):
    xform = conf(
        ValueToKey, {"fields": "optional_with_default", "replace.null.with.default": replace_null_with_default}
    )
    out = xform.apply(make_record(Struct(DEFAULTED).put("optional_with_default", None), value_schema=DEFAULTED))
    assert out.key.get_without_default("optional_with_default") == expected


def test_value_to_key_tombstone_and_nested():
    record = make_record(None, key="k")
    with pytest.raises(DataError, match=r"absence of schema for \[copying fields from value to key\], found: null"):
        conf(ValueToKey, {"fields": "a"}).apply(record)
    xform = conf(ValueToKey, {"fields": "a.b,c", **V2})
    assert xform.apply(make_record({"a": {"b": 1, "x": 2}, "c": 3})).key == {"a": {"b": 1}, "c": 3}


def test_value_to_key_config_error():
    with pytest.raises(ConfigError, match="transforms.t.fields: must be a non-empty list"):
        conf(ValueToKey, {"fields": ""})
