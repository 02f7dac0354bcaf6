"""ConfigDef: Kafka's parse rules per type, validators, errors naming the full key, docs."""

from __future__ import annotations

import pytest

from smt.config import (
    REQUIRED,
    ConfigDef,
    ConfigType,
    Importance,
    at_least,
    kafka_non_empty_string,
    non_empty_list,
    non_empty_string,
    one_of,
)
from smt.errors import ConfigError

# (type, raw value, parsed value): Kafka's ConfigDef.parseType rules.
PARSE_CASES = {
    "string trimmed": (ConfigType.STRING, "  a b  ", "a b"),
    "string empty": (ConfigType.STRING, "   ", ""),
    "string from number": (ConfigType.STRING, 12, "12"),
    "boolean true": (ConfigType.BOOLEAN, "true", True),
    "boolean any case, trimmed": (ConfigType.BOOLEAN, " FaLsE ", False),
    "boolean typed": (ConfigType.BOOLEAN, True, True),
    "int": (ConfigType.INT, "42", 42),
    "int signed, trimmed": (ConfigType.INT, " -7 ", -7),
    "int plus sign": (ConfigType.INT, "+7", 7),
    "int maximum": (ConfigType.INT, "2147483647", 2**31 - 1),
    "int minimum": (ConfigType.INT, "-2147483648", -(2**31)),
    "int typed": (ConfigType.INT, 5, 5),
    "long beyond int": (ConfigType.LONG, "9223372036854775807", 2**63 - 1),
    "double": (ConfigType.DOUBLE, "1.5", 1.5),
    "double exponent": (ConfigType.DOUBLE, " 2e3 ", 2000.0),
    "double from int": (ConfigType.DOUBLE, 3, 3.0),
    "list split and trimmed": (ConfigType.LIST, " a , b,c ", ["a", "b", "c"]),
    "list empty": (ConfigType.LIST, "  ", []),
    "list keeps empty items": (ConfigType.LIST, "a,,b,", ["a", "", "b", ""]),
    "list typed": (ConfigType.LIST, (" x ", "y"), ["x", "y"]),
    "class name trimmed": (ConfigType.CLASS, " org.example.Foo ", "org.example.Foo"),
    "class object": (ConfigType.CLASS, int, int),
    "password trimmed": (ConfigType.PASSWORD, " s3cret ", "s3cret"),
    "path trimmed": (ConfigType.PATH, " data/in ", "data/in"),
}


@pytest.mark.parametrize("type_, raw, expected", PARSE_CASES.values(), ids=PARSE_CASES.keys())
def test_parse_each_type(type_, raw, expected):
    parsed = ConfigDef().define("k", type_).parse({"k": raw})["k"]
    assert parsed == expected
    assert type(parsed) is type(expected)


# (type, raw value, reason in the error)
BAD_VALUE_CASES = {
    "boolean word": (ConfigType.BOOLEAN, "yes", "expected true or false, got 'yes'"),
    "boolean number": (ConfigType.BOOLEAN, "1", "expected true or false, got '1'"),
    "int word": (ConfigType.INT, "ten", "expected an integer, got 'ten'"),
    "int decimal": (ConfigType.INT, "1.0", "expected an integer, got '1.0'"),
    "int underscore (Java has none)": (ConfigType.INT, "1_000", "expected an integer, got '1_000'"),
    "int empty": (ConfigType.INT, " ", "expected an integer, got ' '"),
    "int typed bool": (ConfigType.INT, True, "expected an integer, got 'True'"),
    "int too large": (ConfigType.INT, "2147483648", "2147483648 is out of range for a 32-bit integer"),
    "int too small": (ConfigType.INT, "-2147483649", "-2147483649 is out of range for a 32-bit integer"),
    "long too large": (
        ConfigType.LONG,
        "9223372036854775808",
        "9223372036854775808 is out of range for a 64-bit integer",
    ),
    "double word": (ConfigType.DOUBLE, "abc", "expected a number, got 'abc'"),
    "double underscore": (ConfigType.DOUBLE, "1_0.5", "expected a number, got '1_0.5'"),
}


@pytest.mark.parametrize("type_, raw, reason", BAD_VALUE_CASES.values(), ids=BAD_VALUE_CASES.keys())
def test_bad_value_names_full_key_and_reason(type_, raw, reason):
    definition = ConfigDef().define("size", type_)
    with pytest.raises(ConfigError, match=f"^transforms\\.t\\.size: {reason}$") as info:
        definition.parse({"size": raw}, prefix="transforms.t.")
    (problem,) = info.value.problems
    assert (problem.key, problem.value) == ("transforms.t.size", raw)


# (validator, good values, bad value, reason)
VALIDATOR_CASES = {
    "one_of": (one_of("a", "b"), ["a", "b"], "A", "must be one of a, b; got 'A'"),
    "one_of ignoring case": (one_of("a", "b", case_sensitive=False), ["A", "b"], "c", "must be one of a, b; got 'c'"),
    "at_least": (at_least(1), [1, 100], 0, "must be at least 1; got 0"),
    "non_empty_string": (non_empty_string, ["x"], "", "must be a non-empty string"),
    "kafka_non_empty_string, worded as Kafka's": (kafka_non_empty_string, ["x"], "", "String must be non-empty"),
    "non_empty_list": (non_empty_list, [["x"]], [], "must be a non-empty list"),
    "non_empty_list with an empty item": (non_empty_list, [["x", "y"]], ["x", ""], "must be a non-empty list"),
}


@pytest.mark.parametrize("validator, good, bad, reason", VALIDATOR_CASES.values(), ids=VALIDATOR_CASES.keys())
def test_validators(validator, good, bad, reason):
    for value in good:
        validator(value)
    with pytest.raises(ValueError, match=f"^{reason}$"):
        validator(bad)


def test_validator_runs_on_parsed_value_and_names_full_key():
    definition = ConfigDef().define("fields", ConfigType.LIST, REQUIRED, non_empty_list)
    assert definition.parse({"fields": "a, b"}) == {"fields": ["a", "b"]}
    with pytest.raises(ConfigError, match=r"^transforms\.mask\.fields: must be a non-empty list$"):
        definition.parse({"fields": " "}, prefix="transforms.mask.")
    with pytest.raises(ConfigError, match=r"^transforms\.mask\.fields: must be a non-empty list$"):
        definition.parse({"fields": "a,,b"}, prefix="transforms.mask.")


def test_validator_reason_may_quote_the_raw_value():
    def even(value):
        if value % 2:
            raise ValueError("'{value}' is odd")

    with pytest.raises(ConfigError, match=r"^n: ' 3 ' is odd$"):
        ConfigDef().define("n", ConfigType.INT, validator=even).parse({"n": " 3 "})


def test_validator_skips_null():
    definition = ConfigDef().define("mode", ConfigType.STRING, None, one_of("a", "b"))
    assert definition.parse({"mode": None}) == {"mode": None}
    assert definition.parse({}) == {"mode": None}


def test_required_key_missing():
    definition = ConfigDef().define("topic", ConfigType.STRING)
    with pytest.raises(ConfigError, match=r"^transforms\.route\.topic: is required and has no default$"):
        definition.parse({}, prefix="transforms.route.")


def test_defaults_are_parsed_like_values():
    definition = (
        ConfigDef()
        .define("fields", ConfigType.LIST, "a, b")
        .define("count", ConfigType.INT, "3")
        .define("ratio", ConfigType.DOUBLE, 1)
        .define("flag", ConfigType.BOOLEAN, "TRUE")
        .define("name", ConfigType.STRING, None)
    )
    assert definition.parse({}) == {"fields": ["a", "b"], "count": 3, "ratio": 1.0, "flag": True, "name": None}


def test_default_list_is_fresh_on_every_parse():
    definition = ConfigDef().define("fields", ConfigType.LIST, ["a"])
    first = definition.parse({})
    first["fields"].append("mutated")
    assert definition.parse({}) == {"fields": ["a"]}


def test_invalid_default_is_rejected_at_definition():
    expected = r"^config key 'mode': invalid default 'c': must be one of a, b; got 'c'$"
    with pytest.raises(ValueError, match=expected):
        ConfigDef().define("mode", ConfigType.STRING, "c", one_of("a", "b"))
    expected = r"^config key 'count': invalid default 'x': expected an integer, got 'x'$"
    with pytest.raises(ValueError, match=expected):
        ConfigDef().define("count", ConfigType.INT, "x")


def test_every_problem_is_reported_at_once():
    definition = (
        ConfigDef()
        .define("a", ConfigType.INT)
        .define("b", ConfigType.BOOLEAN)
        .define("c", ConfigType.LIST, REQUIRED, non_empty_list)
        .define("d", ConfigType.STRING, "ok")
    )
    with pytest.raises(ConfigError) as info:
        definition.parse({"a": "x", "c": ""}, prefix="p.")
    assert str(info.value).splitlines() == [
        "p.a: expected an integer, got 'x'",
        "p.b: is required and has no default",
        "p.c: must be a non-empty list",
    ]
    assert [problem.key for problem in info.value.problems] == ["p.a", "p.b", "p.c"]


def test_undeclared_keys_are_ignored():
    definition = ConfigDef().define("a", ConfigType.STRING, "x")
    assert definition.parse({"a": "y", "config.other": "z"}) == {"a": "y"}


def test_key_defined_twice_is_an_error():
    with pytest.raises(ValueError, match=r"^config key 'a' is defined twice$"):
        ConfigDef().define("a", ConfigType.STRING).define("a", ConfigType.INT)


def test_unknown_type_or_importance_is_an_error():
    with pytest.raises(ValueError, match="'float' is not a valid ConfigType"):
        ConfigDef().define("a", "float")
    with pytest.raises(ValueError, match="'urgent' is not a valid Importance"):
        ConfigDef().define("a", ConfigType.STRING, importance="urgent")


def test_merge_keeps_order_and_rejects_clashes():
    first = ConfigDef().define("a", ConfigType.STRING, "1")
    second = ConfigDef().define("b", ConfigType.INT, 2)
    merged = first.merge(second)
    assert [key.name for key in merged.keys] == ["a", "b"]
    assert "b" in merged and "b" not in first
    with pytest.raises(ValueError, match="'a' is defined twice"):
        merged.merge(first)


def test_config_error_from_a_string():
    assert str(ConfigError("whole config is wrong")) == "whole config is wrong"
    assert str(ConfigError("is bad", key="k")) == "k: is bad"
    assert str(ConfigError.for_key("k", "is bad", "v")) == "k: is bad"


def test_to_markdown_documents_every_key():
    definition = (
        ConfigDef()
        .define("field", ConfigType.STRING, REQUIRED, importance=Importance.HIGH, doc="The field.")
        .define("fields", ConfigType.LIST, ["a", "b"], importance="low", doc="Fields | with a pipe\nand a line break.")
        .define("enabled", ConfigType.BOOLEAN, False)
        .define("name", ConfigType.STRING, None)
        .define("separator", ConfigType.STRING, "")
        .define("pattern", ConfigType.STRING, "a|b")
        .define("names", ConfigType.LIST, [])
    )
    assert definition.to_markdown().splitlines() == [
        "| key | type | default | importance | description |",
        "|---|---|---|---|---|",
        "| `field` | string | (required) | high | The field. |",
        "| `fields` | list | `a,b` | low | Fields \\| with a pipe and a line break. |",
        "| `enabled` | boolean | `false` | medium |  |",
        "| `name` | string | `null` | medium |  |",
        '| `separator` | string | `""` | medium |  |',
        "| `pattern` | string | `a\\|b` | medium |  |",
        '| `names` | list | `""` | medium |  |',
    ]


def test_to_markdown_spells_keys_with_their_prefix():
    text = _renamed().merge(ConfigDef().define_prefix("kafka.", "client settings")).to_markdown(prefix="sink.")
    assert text.splitlines()[2:] == [
        '| `sink.exclude` | list | `""` | medium |  |',
        '| `sink.include` | list | `""` | medium |  |',
        "| `sink.kafka.*` | prefix | | medium | client settings |",
        "| `sink.blacklist` | deprecated | | low | Deprecated: use `sink.exclude`. removed in Kafka 4.0 |",
    ]


def test_resolve_paths_makes_relative_path_keys_absolute_and_nothing_else():
    definition = (
        ConfigDef()
        .define("path", ConfigType.PATH, REQUIRED)
        .define("dir", ConfigType.PATH, None)
        .define("name.path", ConfigType.STRING, "")
    )
    props = {"sink.path": "out/../data", "sink.dir": "hdfs://nn/x", "sink.name.path": "rel", "other.path": "rel"}
    assert definition.resolve_paths(props, "/base", prefix="sink.") == {
        "sink.path": "/base/data",
        "sink.dir": "hdfs://nn/x",
        "sink.name.path": "rel",
        "other.path": "rel",
    }
    assert "| `path` | path | (required) |" in definition.to_markdown()


# --- owned prefixes and deprecated names --------------------------------------------


def _renamed() -> ConfigDef:
    return (
        ConfigDef()
        .define("exclude", ConfigType.LIST, [])
        .define("include", ConfigType.LIST, [])
        .define_deprecated("blacklist", "exclude", "removed in Kafka 4.0")
    )


def test_deprecated_name_is_read_as_its_replacement():
    assert _renamed().parse({"blacklist": "a, b"})["exclude"] == ["a", "b"]


def test_replacement_wins_over_its_deprecated_name():
    assert _renamed().parse({"blacklist": "a", "exclude": "b"})["exclude"] == ["b"]


def test_deprecated_name_of_an_undefined_key_is_refused():
    with pytest.raises(ValueError, match="deprecated key 'old': replacement 'new' is not defined"):
        ConfigDef().define_deprecated("old", "new")


def test_prefix_must_end_with_a_dot_and_name_its_type_key():
    with pytest.raises(ValueError, match="config prefix 'kafka' must end with '.'"):
        ConfigDef().define_prefix("kafka")
    with pytest.raises(ValueError, match="plugin_key 'conv' is not defined"):
        ConfigDef().define_prefix("conv.", plugin_kind="converter", plugin_key="conv")


def test_merge_keeps_prefixes_and_deprecated_names():
    merged = _renamed().merge(ConfigDef().define_prefix("kafka.", "client settings"))
    assert [p.prefix for p in merged.prefixes] == ["kafka."]
    assert [d.name for d in merged.deprecated] == ["blacklist"]


def test_markdown_documents_prefixes_and_deprecated_names():
    text = _renamed().merge(ConfigDef().define_prefix("kafka.", "client settings")).to_markdown()
    assert "| `kafka.*` | prefix | | medium | client settings |" in text
    assert "| `blacklist` | deprecated | | low | Deprecated: use `exclude`. removed in Kafka 4.0 |" in text
