"""Confluent's Filter, from its documented behaviours and Jayway JsonPath's matching rules."""

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError, DataError
from smt.plugins import default_plugins
from smt.transforms.confluent.filter import ConfluentFilterKey, ConfluentFilterValue
from tests.smt.transforms._helpers import conf, make_record

DOCS_CONDITION = '$.key[?(@.nestedKey == "value1" || @.nestedKey == "value2")]'


def value_filter(condition, filter_type="include", **extra):
    return conf(ConfluentFilterValue, {"filter.condition": condition, "filter.type": filter_type, **extra})


def kept(transform, value, **record):
    return transform.apply(make_record(value, **record)) is not None


# (condition, value, matches): Jayway's reading of each path.
MATCHES = [
    (DOCS_CONDITION, {"key": [{"nestedKey": "value1"}, {"nestedKey": "other"}]}, True),
    (DOCS_CONDITION, {"key": [{"nestedKey": "other"}]}, False),
    (DOCS_CONDITION, {"key": {"nestedKey": "value2"}}, True),  # a filter on an object tests the object
    ("$[?(@.shop == 'us')]", {"shop": "us"}, True),
    ("$[?(@.shop == 'us')]", {"shop": "uk"}, False),
    ("$[?(@.shop == 'us')]", {"other": 1}, False),  # absent inside a filter: no match, not missing
    ("$[?(@.ts)]", {"ts": 5}, True),
    ("$[?(@.price > 500)]", {"price": 700}, True),
    ("$[?(@.price > 500)]", {"price": 100}, False),
    ('$[?(@.code =~ "^A.*")]', {"code": "AB"}, True),
    ("$[?(@.a == 1 && @.b == 2)]", {"a": 1, "b": 2}, True),
    ("$[?(@.a == 1 && @.b == 2)]", {"a": 1, "b": 3}, False),
    ("$.after.topic_name", {"after": {"topic_name": "t"}}, True),
    ("$.after.topic_name", {"after": {"topic_name": None}}, True),  # a definite path that resolves to null
    ('$["a"]["b"]', {"a": {"b": 0}}, True),
    ("$.items[*].sku", {"items": []}, False),
    ("$.items[*].sku", {"items": [{"sku": 1}]}, True),
    ("$.key[?(@.x == $.want)]", {"key": [{"x": 1}, {"x": 2}], "want": 2}, True),  # $ is the document
    ("$[?(@.a == $.b)]", {"a": 1, "b": 2}, False),
    ("$..[?(@.sku == 'z')]", {"order": {"lines": [{"sku": "z"}]}}, True),
]


@pytest.mark.parametrize(("condition", "value", "matches"), MATCHES)
def test_include_keeps_what_matches_and_exclude_drops_it(condition, value, matches):
    assert kept(value_filter(condition, "include"), value) is matches
    assert kept(value_filter(condition, "exclude"), value) is not matches


@pytest.mark.parametrize("value", [{"other": 1}, {"after": {}}, {"after": "a string"}])
def test_a_missing_definite_path_fails_by_default_naming_the_record_and_the_key(value):
    with pytest.raises(
        DataError,
        match=r"filter condition `\$\.after\.topic_name` to the value of the record \(topic test, partition 0, "
        r"offset 3\).*Set transforms\.t\.missing\.or\.null\.behavior to include or exclude",
    ):
        value_filter("$.after.topic_name").apply(make_record(value, offset=3))


@pytest.mark.parametrize(("behavior", "keeps"), [("include", True), ("exclude", False), ("INCLUDE", True)])
def test_missing_or_null_behavior_decides_for_a_record_without_the_path(behavior, keeps):
    transform = value_filter("$.key[?(@.nestedKey == 'v')]", "include", **{"missing.or.null.behavior": behavior})
    assert kept(transform, {"other": 1}) is keeps
    assert kept(transform, {"key": [{"nestedKey": "v"}]}) is True


def test_a_tombstone_passes_whatever_the_condition():
    record = make_record(None)
    assert value_filter("$.a", "include").apply(record) is record
    assert value_filter("$.a", "exclude").apply(record) is record


def test_a_struct_is_read_as_the_map_of_its_fields():
    inner = SchemaBuilder.struct().field("nestedKey", Schema.STRING_SCHEMA).build()
    schema = SchemaBuilder.struct().field("key", inner).field("n", Schema.OPTIONAL_INT32_SCHEMA).build()
    value = Struct(schema).put("key", Struct(inner).put("nestedKey", "value1"))
    assert kept(value_filter(DOCS_CONDITION, "include"), value, value_schema=schema)
    assert not kept(value_filter(DOCS_CONDITION, "exclude"), value, value_schema=schema)
    assert kept(value_filter("$.n", "include"), value, value_schema=schema)  # an unset optional field is null


def test_the_key_variant_reads_the_key():
    transform = conf(ConfluentFilterKey, {"filter.condition": "$[?(@.id == 1)]", "filter.type": "exclude"})
    assert transform.apply(make_record({"id": 2}, key={"id": 1})) is None
    assert transform.apply(make_record({"id": 1}, key={"id": 2})) is not None


@pytest.mark.parametrize(
    ("value", "schema", "message"),
    [
        (
            "text",
            None,
            r"Only Map objects supported in absence of schema for \[filtering record without schema\], "
            r"found: str",
        ),
        (
            {"a": 1},
            Schema.STRING_SCHEMA,
            r"Only Struct objects supported for \[filtering record with schema\], "
            r"found: dict",
        ),
    ],
)
def test_the_part_must_be_a_map_or_a_struct(value, schema, message):
    with pytest.raises(DataError, match=message):
        value_filter("$.a").apply(make_record(value, value_schema=schema))


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"filter.type": "include"}, r"filter\.condition"),
        ({"filter.condition": "$.a"}, r"filter\.type"),
        ({"filter.condition": "$.a", "filter.type": "keep"}, r"filter\.type.*must be one of include, exclude"),
        ({"filter.condition": "$[", "filter.type": "include"}, r"transforms\.t\.filter\.condition: Invalid json path"),
        # Jayway-only syntax jsonpath-ng does not parse (docs/kafka-connect-compatibility.md lists it)
        ({"filter.condition": "$[?(@.a in [1, 2])]", "filter.type": "include"}, r"filter\.condition: Invalid json"),
        ({"filter.condition": "$[?(@.a =~ /x.*/i)]", "filter.type": "include"}, r"filter\.condition: Invalid json"),
        ({"filter.condition": "$.a.length()", "filter.type": "include"}, r"filter\.condition: Invalid json path"),
        (
            {"filter.condition": "$.a", "filter.type": "include", "missing.or.null.behavior": "drop"},
            r"missing\.or\.null\.behavior.*must be one of fail, include, exclude",
        ),
    ],
)
def test_bad_configuration_is_refused_naming_the_key(props, message):
    with pytest.raises(ConfigError, match=message):
        conf(ConfluentFilterValue, props)


def test_registered_under_confluents_class_names_beside_kafkas_filter():
    plugins = default_plugins()
    assert plugins.get("transform", "io.confluent.connect.transforms.Filter$Value") is ConfluentFilterValue
    assert plugins.get("transform", "io.confluent.connect.transforms.Filter$Key") is ConfluentFilterKey
    assert plugins.get("transform", "org.apache.kafka.connect.transforms.Filter") is not ConfluentFilterValue
