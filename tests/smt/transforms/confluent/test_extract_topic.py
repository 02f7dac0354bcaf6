"""Confluent's ExtractTopic, from its documented examples and keys."""

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError, DataError
from smt.plugins import default_plugins
from smt.transforms.confluent.extract_topic import ExtractTopicHeader, ExtractTopicKey, ExtractTopicValue
from tests.smt.transforms._helpers import conf, make_record

INNER = SchemaBuilder.struct().field("f3", Schema.OPTIONAL_STRING_SCHEMA).build()
SCHEMA = (
    SchemaBuilder.struct()
    .field("f1", INNER)
    .field("f2", Schema.STRING_SCHEMA)
    .field("n", Schema.OPTIONAL_INT32_SCHEMA)
    .build()
)


def struct_value(f2="from-f2", f3="from-f3"):
    return Struct(SCHEMA).put("f1", Struct(INNER).put("f3", f3)).put("f2", f2)


def topic_of(transform, record):
    return transform.apply(record).topic


def test_the_whole_key_becomes_the_topic():
    assert topic_of(conf(ExtractTopicKey, {}), make_record({"a": 1}, key="orders")) == "orders"


@pytest.mark.parametrize(
    ("value", "schema"),
    [({"f2": "from-f2", "f1": {"f3": "from-f3"}}, None), (struct_value(), SCHEMA)],
    ids=["schemaless", "struct"],
)
def test_a_field_or_a_json_path_becomes_the_topic(value, schema):
    record = make_record(value, value_schema=schema)
    assert topic_of(conf(ExtractTopicValue, {"field": "f2"}), record) == "from-f2"
    json_path = conf(ExtractTopicValue, {"field": '$["f1"]["f3"]', "field.format": "JSON_PATH"})
    assert topic_of(json_path, record) == "from-f3"


@pytest.mark.parametrize(
    ("props", "record"),
    [
        ({"field": "f3"}, make_record({"f2": "x"})),  # missing field
        ({"field": "f3"}, make_record({"f3": None})),  # null field
        ({"field": "n"}, make_record(struct_value(), value_schema=SCHEMA)),  # unset optional struct field
        ({"field": "absent"}, make_record(struct_value(), value_schema=SCHEMA)),  # not in the schema
        ({"field": "$.f1.f9", "field.format": "JSON_PATH"}, make_record({"f1": {}})),
        ({"field": "f2"}, make_record(None)),  # a tombstone
        ({}, make_record(None)),
    ],
)
def test_a_missing_or_null_source_fails_unless_skipped(props, record):
    with pytest.raises(
        DataError, match=r"record \(topic test, partition 0, offset None\).*skip\.missing\.or\.null=true"
    ):
        conf(ExtractTopicValue, props).apply(record)
    assert conf(ExtractTopicValue, {**props, "skip.missing.or.null": "true"}).apply(record) is record


def test_the_key_variant_reads_the_key_field():
    transform = conf(ExtractTopicKey, {"field": "f3", "skip.missing.or.null": "true"})
    assert topic_of(transform, make_record({"f3": "value-side"}, key={"f3": "key-side"})) == "key-side"


def test_the_header_variant_takes_the_last_header_of_that_name():
    record = make_record({"a": 1}, headers=(("route", "first"), ("other", "x"), ("route", "last")))
    assert topic_of(conf(ExtractTopicHeader, {"field": "route"}), record) == "last"
    with pytest.raises(DataError, match=r"the record has no header 'missing'"):
        conf(ExtractTopicHeader, {"field": "missing"}).apply(record)
    skipping = conf(ExtractTopicHeader, {"field": "missing", "skip.missing.or.null": "true"})
    assert skipping.apply(record) is record


@pytest.mark.parametrize(
    ("props", "record", "message"),
    [
        ({}, make_record(None, key=42), r"the topic name must be a string, found: int"),
        ({"field": "n"}, make_record(None, key={"n": 7}), r"the topic name must be a string, found: int"),
        ({"field": "f"}, make_record(None, key={"f": ""}), r"the topic name is an empty string"),
        (
            {"field": "$.items[*]", "field.format": "JSON_PATH"},
            make_record(None, key={"items": ["a"]}),
            r"the topic name must be a string, found: list",
        ),
    ],
)
def test_what_is_not_a_topic_name_fails_naming_the_transform(props, record, message):
    with pytest.raises(DataError, match=r"ExtractTopic \(transforms\.t\) cannot take a topic name.*" + message):
        conf(ExtractTopicKey, props).apply(record)


@pytest.mark.parametrize(
    ("value", "schema", "message"),
    [
        ("text", None, r"Only Map objects supported in absence of schema for \[extracting topic from record without "),
        (
            {"f": "x"},
            SCHEMA,
            r"Only Struct objects supported for \[extracting topic from record with schema\], found: dict",
        ),
    ],
)
def test_a_named_field_needs_a_map_or_a_struct(value, schema, message):
    with pytest.raises(DataError, match=message):
        conf(ExtractTopicValue, {"field": "f"}).apply(make_record(value, value_schema=schema))


@pytest.mark.parametrize(
    ("cls", "props", "message"),
    [
        (ExtractTopicValue, {"field.format": "jsonpath"}, r"field\.format.*must be one of PLAIN, JSON_PATH"),
        (ExtractTopicValue, {"field": "$[", "field.format": "JSON_PATH"}, r"transforms\.t\.field: Invalid json path"),
        (ExtractTopicHeader, {}, r"transforms\.t\.field: ExtractTopic\$Header needs a header key"),
        (ExtractTopicHeader, {"field": "h", "field.format": "JSON_PATH"}, r"field\.format: .*only PLAIN"),
        (ExtractTopicKey, {"skip.missing.or.null": "maybe"}, r"skip\.missing\.or\.null"),
    ],
)
def test_bad_configuration_is_refused_naming_the_key(cls, props, message):
    with pytest.raises(ConfigError, match=message):
        conf(cls, props)


@pytest.mark.parametrize(
    ("name", "cls"),
    [("Key", ExtractTopicKey), ("Value", ExtractTopicValue), ("Header", ExtractTopicHeader)],
)
def test_registered_under_confluents_class_names(name, cls):
    assert default_plugins().get("transform", f"io.confluent.connect.transforms.ExtractTopic${name}") is cls
