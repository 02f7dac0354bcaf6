"""HeaderToValue: headers copied or moved into the value struct."""

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError, DataError
from smt.plugins import default_plugins
from smt.transforms.debezium.header_to_value import HeaderToValue
from tests.smt.transforms._helpers import conf, make_record

VALUE = (
    SchemaBuilder.struct()
    .name("server.public.customers.Value")
    .version(2)
    .field("id", Schema.INT32_SCHEMA)
    .field("note", SchemaBuilder.string().optional().default_value("n/a").build())
    .optional()
    .build()
)
MAPPING = {"headers": "h1,h2", "fields": "f1,f2", "operation": "copy"}


def header_to_value(props=None, **overrides):
    return conf(HeaderToValue, {**(props or MAPPING), **overrides})


def value(id_=1, note="x"):
    return Struct(VALUE).put("id", id_).put("note", note)


def record(headers, val=None):
    return make_record(value() if val is None else val, value_schema=VALUE, headers=headers)


def test_copy_appends_fields_in_header_order_and_keeps_headers():
    headers = (("h2", 7), ("other", "o"), ("h1", "a"))
    out = header_to_value().apply(record(headers))
    assert [f.name for f in out.value_schema.fields] == ["id", "note", "f2", "f1"]
    assert out.value_schema.field("f2").schema == Schema.INT64_SCHEMA
    assert out.value_schema.field("f1").schema == Schema.STRING_SCHEMA
    assert (out.value.get("id"), out.value.get("f1"), out.value.get("f2")) == (1, "a", 7)
    assert out.headers == headers


def test_move_removes_every_header_of_the_configured_names():
    headers = (("h1", "a"), ("other", "o"), ("h1", "b"))
    out = header_to_value(operation="move").apply(record(headers))
    assert out.headers == (("other", "o"),)
    assert out.value.get("f1") == "b"  # the last header of a name wins


def test_operation_is_case_insensitive():
    assert header_to_value(operation="MOVE").move


def test_derived_schema_copies_basics_but_not_optional_and_is_cached():
    xform = header_to_value()
    first = xform.apply(record((("h1", "a"),)))
    second = xform.apply(record((("h1", "b"),), val=value(2, None)))
    assert first.value_schema is second.value_schema
    assert xform.schema_cache.misses == 1
    assert (first.value_schema.name, first.value_schema.version) == ("server.public.customers.Value", 2)
    assert not first.value_schema.optional
    assert second.value.get("note") == "n/a"  # Debezium copies a null field as its default


def test_a_field_the_value_has_keeps_its_schema_and_takes_the_header_value():
    out = header_to_value({"headers": "h", "fields": "note", "operation": "copy"}).apply(record((("h", "hdr"),)))
    assert out.value_schema.field("note").schema == VALUE.field("note").schema
    assert out.value.get("note") == "hdr"


def test_records_without_the_headers_and_tombstones_pass_unchanged():
    xform = header_to_value(operation="move")
    plain = record((("other", 1),))
    tombstone = make_record(None, value_schema=VALUE, headers=(("h1", "a"),))
    assert xform.apply(plain) is plain
    assert xform.apply(tombstone) is tombstone


def test_a_schemaless_value_fails_as_debezium_requires_a_struct():
    with pytest.raises(DataError, match=r"Only Struct objects supported for \[Header field insertion\], found: dict"):
        header_to_value().apply(make_record({"id": 1}, headers=(("h1", "a"),)))


@pytest.mark.parametrize("bad", [None, []])
def test_a_header_whose_schema_cannot_be_inferred_fails_naming_it(bad):
    with pytest.raises(
        DataError, match=r"header 'h1' holds (null|list), whose schema cannot be inferred for value field 'f1'"
    ):
        header_to_value().apply(record((("h1", bad),)))


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"headers": "h1", "fields": "f1,f2", "operation": "copy"},
            r"transforms\.t\.fields.*'fields' config must have the same number of elements as 'headers' config\.",
        ),
        (
            {"headers": "h 1", "fields": "f1", "operation": "copy"},
            r"transforms\.t\.headers.*Element\(s\) containing space not permitted",
        ),
        (
            {"headers": "h1,,h2", "fields": "a,b,c", "operation": "copy"},
            r"transforms\.t\.headers.*Empty string element\(s\) not permitted",
        ),
        (
            {"headers": "h1", "fields": "f 1", "operation": "copy"},
            r"transforms\.t\.fields.*Element\(s\) containing space",
        ),
        (
            {"headers": "h1", "fields": "f1", "operation": "swap"},
            r"transforms\.t\.operation.*must be one of move, copy",
        ),
        ({"headers": "h1", "fields": "f1"}, r"transforms\.t\.operation"),
        ({"fields": "f1", "operation": "copy"}, r"transforms\.t\.headers"),
        (
            {"headers": "h1", "fields": "a.b", "operation": "copy"},
            r"transforms\.t\.fields.*nested fields are not supported",
        ),
    ],
)
def test_config_rejections_name_the_key(props, message):
    with pytest.raises(ConfigError, match=message):
        conf(HeaderToValue, props)


def test_registered_under_debezium_class_name():
    assert default_plugins().get("transform", "io.debezium.transforms.HeaderToValue") is HeaderToValue
