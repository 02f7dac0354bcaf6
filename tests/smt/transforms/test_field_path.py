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


@pytest.mark.parametrize(
    "text, position",
    [
        ("`foo.bar.baz", 0),
        ("foo.`bar.baz", 4),
        ("foo.bar.`baz", 8),
        ("foo.bar.`baz\\`", 8),
    ],
)
def test_incomplete_backticks(text, position):
    expected = (
        f"Incomplete backtick pair in path: [{text}], consider adding a backslash before "
        f"backtick at position {position} to escape it"
    )
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


# --- FieldSyntaxVersionTest ---------------------------------------------------------------------

from smt.config import ConfigDef  # noqa: E402
from smt.transforms._field_path import FIELD_SYNTAX_VERSION, with_field_syntax  # noqa: E402


def test_syntax_version_key_is_appended_with_default_v1():
    definition = with_field_syntax(ConfigDef())
    assert [k.name for k in definition.keys] == [FIELD_SYNTAX_VERSION]
    assert definition.keys[0].default == "V1"


def test_syntax_version_key_cannot_be_appended_twice():
    with pytest.raises(ValueError, match="field.syntax.version' is defined twice"):
        with_field_syntax(with_field_syntax(ConfigDef()))


@pytest.mark.parametrize("given, version", [("v1", "V1"), ("v2", "V2"), ("V1", "V1"), ("V2", "V2")])
def test_syntax_version_is_case_insensitive(given, version):
    parsed = with_field_syntax(ConfigDef()).parse({FIELD_SYNTAX_VERSION: given})[FIELD_SYNTAX_VERSION]
    assert parsed.upper() == version
    assert parse_path("a.b", parsed).steps == (("a.b",) if version == "V1" else ("a", "b"))


@pytest.mark.parametrize("given", ["v3", "V 1", "v", "V 2", "2", "1"])
def test_wrong_syntax_version_is_rejected(given):
    with pytest.raises(
        ConfigError, match=r"^field.syntax.version: String must be one of \(case insensitive\): V1, V2$"
    ):
        with_field_syntax(ConfigDef()).parse({FIELD_SYNTAX_VERSION: given})
