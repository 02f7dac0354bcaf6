"""ReplaceField, with the cases of Kafka's ReplaceFieldTest."""

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError
from smt.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue
from tests.smt.transforms._helpers import conf, make_record

SCHEMA = (SchemaBuilder.struct().field("dont", Schema.STRING_SCHEMA).field("abc", Schema.INT32_SCHEMA)
          .field("foo", Schema.BOOLEAN_SCHEMA).field("etc", Schema.STRING_SCHEMA).build())
INCLUDE_RENAME = {"include": "abc,foo", "renames": "abc:xyz,foo:bar"}


def test_tombstone_schemaless():
    out = conf(ReplaceFieldValue, INCLUDE_RENAME).apply(make_record(None))
    assert out.value is None and out.value_schema is None


def test_tombstone_with_schema():
    out = conf(ReplaceFieldValue, INCLUDE_RENAME).apply(make_record(None, value_schema=SCHEMA))
    assert out.value is None and out.value_schema == SCHEMA


def test_schemaless():
    out = conf(ReplaceFieldValue, {"exclude": "dont", "renames": "abc:xyz,foo:bar"}).apply(
        make_record({"dont": "whatever", "abc": 42, "foo": True, "etc": "etc"}))
    assert out.value == {"xyz": 42, "bar": True, "etc": "etc"}


def test_with_schema():
    value = Struct(SCHEMA).put("dont", "whatever").put("abc", 42).put("foo", True).put("etc", "etc")
    xform = conf(ReplaceFieldValue, INCLUDE_RENAME)
    out = xform.apply(make_record(value, value_schema=SCHEMA))
    assert [f.name for f in out.value_schema.fields] == ["xyz", "bar"]
    assert (out.value.get_int32("xyz"), out.value.get_boolean("bar")) == (42, True)
    again = xform.apply(make_record(value, value_schema=SCHEMA))
    assert again.value_schema is out.value_schema and xform.schema_cache.misses == 1


@pytest.mark.parametrize("cls", [ReplaceFieldValue, ReplaceFieldKey])
@pytest.mark.parametrize("replace_null_with_default, expected", [("false", None), ("true", 42)])
def test_replace_null_with_default(cls, replace_null_with_default, expected):
    schema = SchemaBuilder.struct().field("abc", SchemaBuilder.int32().optional().default_value(42).build()).build()
    xform = conf(cls, {"include": "abc", "renames": "abc:optional_with_default",
                       "replace.null.with.default": replace_null_with_default})
    struct = Struct(schema).put("abc", None)
    record = make_record(struct, value_schema=schema) if cls is ReplaceFieldValue else make_record(None, key=struct, key_schema=schema)
    out = xform.apply(record)
    part = out.value if cls is ReplaceFieldValue else out.key
    assert len(part.schema.fields) == 1 and part.get_without_default("optional_with_default") == expected


@pytest.mark.parametrize("props, expected", [
    ({"exclude": "a", "include": "a,b"}, {"b": 2}),   # exclude wins over include
    ({"include": "b,zzz"}, {"b": 2}),
    ({}, {"a": 1, "b": 2, "c": 3}),
    ({"renames": "a:b,b:a"}, {"b": 1, "a": 2, "c": 3}),
])
def test_filter_rules(props, expected):
    assert conf(ReplaceFieldValue, props).apply(make_record({"a": 1, "b": 2, "c": 3})).value == expected


@pytest.mark.parametrize("renames", ["abc", "a:b:c", "a:b,c"])
def test_invalid_rename_mapping(renames):
    with pytest.raises(ConfigError, match="transforms.t.renames: Invalid rename mapping: "):
        conf(ReplaceFieldValue, {"renames": renames})
