"""HeaderFrom, with the cases of Kafka's HeaderFromTest (key and value, schemaless and with schemas)."""

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError, DataError
from smt.transforms.header_from import HeaderFromKey, HeaderFromValue
from tests.smt.transforms._helpers import conf, make_record

S = Schema.STRING_SCHEMA
DEFAULTED = SchemaBuilder.string().default_value("default").optional().build()
FOO = SchemaBuilder.struct().field("foo", S).build()
FOO_VALUE = Struct(FOO).put("foo", "foo-value")
TWO_FIELDS = [("field1", S, "field1-value"), ("field2", S, "field2-value")]

# (description, input fields, input headers, fields, headers, operation, replace.null.with.default,
#  expected fields, expected headers) — fields are (name, schema, value), headers (name, value).
CASES = [
    (
        "basic copy",
        TWO_FIELDS,
        [("header1", "existing-value")],
        "field1",
        "inserted1",
        "copy",
        True,
        TWO_FIELDS,
        [("header1", "existing-value"), ("inserted1", "field1-value")],
    ),
    (
        "basic move",
        TWO_FIELDS,
        [("header1", "existing-value")],
        "field1",
        "inserted1",
        "move",
        True,
        TWO_FIELDS[1:],
        [("header1", "existing-value"), ("inserted1", "field1-value")],
    ),
    (
        "copy with preexisting header",
        TWO_FIELDS,
        [("inserted1", "existing-value")],
        "field1",
        "inserted1",
        "copy",
        True,
        TWO_FIELDS,
        [("inserted1", "existing-value"), ("inserted1", "field1-value")],
    ),
    (
        "move with preexisting header",
        TWO_FIELDS,
        [("inserted1", "existing-value")],
        "field1",
        "inserted1",
        "move",
        True,
        TWO_FIELDS[1:],
        [("inserted1", "existing-value"), ("inserted1", "field1-value")],
    ),
    (
        "copy with struct value",
        [("field1", FOO, FOO_VALUE), TWO_FIELDS[1]],
        [("header1", "existing-value")],
        "field1",
        "inserted1",
        "copy",
        True,
        [("field1", FOO, FOO_VALUE), TWO_FIELDS[1]],
        [("header1", "existing-value"), ("inserted1", FOO_VALUE)],
    ),
    (
        "move with struct value",
        [("field1", FOO, FOO_VALUE), TWO_FIELDS[1]],
        [("header1", "existing-value")],
        "field1",
        "inserted1",
        "move",
        True,
        [TWO_FIELDS[1]],
        [("header1", "existing-value"), ("inserted1", FOO_VALUE)],
    ),
    (
        "two headers from same field",
        TWO_FIELDS,
        [("header1", "existing-value")],
        "field1,field1",
        "inserted1,inserted2",
        "move",
        True,
        TWO_FIELDS[1:],
        [("header1", "existing-value"), ("inserted1", "field1-value"), ("inserted2", "field1-value")],
    ),
    (
        "two fields to same header",
        TWO_FIELDS,
        [("header1", "existing-value")],
        "field1,field2",
        "inserted1,inserted1",
        "move",
        True,
        [],
        [("header1", "existing-value"), ("inserted1", "field1-value"), ("inserted1", "field2-value")],
    ),
    (
        "copy null field without default",
        [("field1", DEFAULTED, "field1-value"), ("field2", DEFAULTED, None)],
        [("header1", "existing-value")],
        "field1,field2",
        "inserted1,inserted2",
        "copy",
        False,
        [("field1", DEFAULTED, "field1-value"), ("field2", DEFAULTED, None)],
        [("header1", "existing-value"), ("inserted1", "field1-value"), ("inserted2", None)],
    ),
    (
        "move null field without default",
        [("field1", DEFAULTED, "field1-value"), ("field2", DEFAULTED, None)],
        [("header1", "existing-value")],
        "field1,field2",
        "inserted1,inserted2",
        "move",
        False,
        [],
        [("header1", "existing-value"), ("inserted1", "field1-value"), ("inserted2", None)],
    ),
]


def build(fields, headers, key_side, with_schema):
    if with_schema:
        builder = SchemaBuilder.struct()
        for name, schema, _ in fields:
            builder.field(name, schema)
        schema = builder.build()
        part = Struct(schema)
        for name, _, value in fields:
            part.put(name, value)
    else:
        schema, part = None, {name: value for name, _, value in fields}
    if key_side:
        return make_record("value", key=part, key_schema=schema, headers=tuple(headers))
    return make_record(part, key="key", value_schema=schema, headers=tuple(headers))


@pytest.mark.parametrize("with_schema", [False, True], ids=["schemaless", "with-schema"])
@pytest.mark.parametrize("key_side", [True, False], ids=["key", "value"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_header_from(case, key_side, with_schema):
    _, fields, headers, from_fields, to_headers, operation, replace_null, want_fields, want_headers = case
    cls = HeaderFromKey if key_side else HeaderFromValue
    xform = conf(
        cls,
        {
            "fields": from_fields,
            "headers": to_headers,
            "operation": operation,
            "replace.null.with.default": str(replace_null).lower(),
        },
    )
    out = xform.apply(build(fields, headers, key_side, with_schema))
    expected = build(want_fields, want_headers, key_side, with_schema)
    assert out.headers == expected.headers
    if key_side:
        assert (out.key_schema, out.key, out.value) == (expected.key_schema, expected.key, expected.value)
    else:
        assert (out.value_schema, out.value, out.key) == (expected.value_schema, expected.value, expected.key)


@pytest.mark.parametrize(
    "props, message",
    [
        (
            {"fields": "a,b", "headers": "h", "operation": "copy"},
            "'fields' config must have the same number of elements as 'headers' config.",
        ),
        ({"fields": "a", "headers": "h", "operation": "steal"}, "transforms.t.operation: must be one of move, copy"),
        ({"fields": "", "headers": "h", "operation": "copy"}, "transforms.t.fields: must be a non-empty list"),
        ({"fields": "a", "headers": "h"}, "transforms.t.operation: is required"),
    ],
)
def test_config_errors(props, message):
    with pytest.raises(ConfigError, match=message):
        conf(HeaderFromValue, props)


def test_non_map_is_an_error_naming_the_operation():
    with pytest.raises(DataError, match=r"\[header move\], found: str"):
        conf(HeaderFromValue, {"fields": "a", "headers": "h", "operation": "move"}).apply(make_record("x"))


def test_tombstone_passes_through_without_headers():
    record = make_record(None, headers=(("h", 1),))
    assert conf(HeaderFromValue, {"fields": "a", "headers": "x", "operation": "copy"}).apply(record) == record


def test_nested_path_v2():
    xform = conf(HeaderFromValue, {"fields": "a.b", "headers": "x", "operation": "copy", "field.syntax.version": "V2"})
    assert xform.apply(make_record({"a": {"b": 5}})).headers == (("x", 5),)


@pytest.mark.parametrize("cls", [HeaderFromKey, HeaderFromValue])
@pytest.mark.parametrize(
    "fields, headers, message",
    [
        ("foo", "foo,bar", "'fields' config must have the same number of elements as 'headers' config."),
        ("foo,bar", "foo", "'fields' config must have the same number of elements as 'headers' config."),
        ("", "", "transforms.t.fields: must be a non-empty list"),
    ],
)
def test_invalid_field_and_header_lists(cls, fields, headers, message):
    with pytest.raises(ConfigError, match=message):
        conf(cls, {"fields": fields, "headers": headers, "operation": "copy"})
