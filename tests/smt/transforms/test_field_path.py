"""Field paths, with the cases of Kafka's FieldPathNotationTest and SingleFieldPathTest."""

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError
from smt.transforms._field_path import parse_path

V2_CASES = [
    ("..", ["", "", ""]),
    ("foo..", ["foo", "", ""]),
    (".bar.", ["", "bar", ""]),
    ("..baz", ["", "", "baz"]),
    ("", []),
    ("foobarbaz", ["foobarbaz"]),
    ("foo.bar.baz", ["foo", "bar", "baz"]),
    ("foo`bar`baz", ["foo`bar`baz"]),
    ("`foo.bar.baz`", ["foo.bar.baz"]),
    ("foo.`bar.baz`", ["foo", "bar.baz"]),
    ("`foo.bar`.baz", ["foo.bar", "baz"]),
    ("foo.`bar`.baz", ["foo", "bar", "baz"]),
    ("foo.``bar.baz`", ["foo", "`bar.baz"]),
    ("foo.`bar.baz``", ["foo", "bar.baz`"]),
    ("foo.`ba`r.baz`", ["foo", "ba`r.baz"]),
    ("foo.ba`r.baz", ["foo", "ba`r", "baz"]),
    ("foo.``bar``.baz", ["foo", "`bar`", "baz"]),
    ("``foo.bar.baz``", ["`foo.bar.baz`"]),
    ("foo.`bar\\`.baz`", ["foo", "bar`.baz"]),
    ("foo.`bar.`baz`", ["foo", "bar.`baz"]),
    ("foo.`bar\\`.`baz`", ["foo", "bar`.`baz"]),
    ("foo.`bar\\\\`.\\`baz`", ["foo", "bar\\`.\\`baz"]),
]


@pytest.mark.parametrize("text, steps", V2_CASES)
def test_v2_steps(text, steps):
    assert list(parse_path(text, "V2").steps) == steps


@pytest.mark.parametrize("text", ["foo.bar.baz", "foo`bar`", "foo.`bar.baz`"])
def test_v1_is_one_step(text):
    assert parse_path(text, "V1").steps == (text,)


@pytest.mark.parametrize("text, position", [
    ("`foo.bar.baz", 0), ("foo.`bar.baz", 4), ("foo.bar.`baz", 8), ("foo.bar.`baz\\`", 8),
])
def test_incomplete_backticks(text, position):
    expected = (f"Incomplete backtick pair in path: [{text}], consider adding a backslash before "
                f"backtick at position {position} to escape it")
    with pytest.raises(ConfigError) as raised:
        parse_path(text, "V2", key="transforms.t.field")
    assert str(raised.value) == "transforms.t.field: " + expected


BAR = SchemaBuilder.struct().field("bar", Schema.INT32_SCHEMA).build()
SCHEMA = SchemaBuilder.struct().field("foo", BAR).build()


def test_field_from_schema():
    assert parse_path("foo.bar", "V2").field_from(SCHEMA) == BAR.field("bar")
    assert parse_path("foo", "V2").field_from(SCHEMA) == SCHEMA.field("foo")
    for missing in ("un.known", "foo.unknown", "unknown"):
        assert parse_path(missing, "V2").field_from(SCHEMA) is None
    assert parse_path("test", "V2").field_from(None) is None


def test_value_from_map():
    value = {"foo": {"bar": 42, "baz": None}}
    assert parse_path("foo.bar", "V2").get_from_map(value) == 42
    for missing in ("foo.baz", "un.known", "foo.unknown", "unknown", "foo.baz.inner"):
        assert parse_path(missing, "V2").get_from_map(value) is None


def test_value_from_struct():
    baz = SchemaBuilder.struct().field("inner", Schema.STRING_SCHEMA).optional().build()
    bar = SchemaBuilder.struct().field("bar", Schema.INT32_SCHEMA).field("baz", baz).build()
    schema = SchemaBuilder.struct().field("foo", bar).build()
    struct = Struct(schema).put("foo", Struct(bar).put("bar", 42).put("baz", None))
    assert parse_path("foo.bar", "V2").get_from_struct(struct) == 42
    for missing in ("foo.baz", "un.known", "foo.unknown", "unknown", "foo.baz.inner"):
        assert parse_path(missing, "V2").get_from_struct(struct) is None
