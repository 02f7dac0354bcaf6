"""DropHeaders, InsertHeader, SetSchemaMetadata and Filter, with the cases of their Kafka tests."""

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError, DataError
from smt.plugins import default_plugins
from smt.transforms.drop_headers import DropHeaders
from smt.transforms.filter import Filter
from smt.transforms.insert_header import InsertHeader
from smt.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from tests.smt.transforms._helpers import conf, make_record

EXISTING = (("existing", "existing-value"),)


@pytest.mark.parametrize(
    "drop, headers, expected",
    [
        ("to-drop", EXISTING + (("to-drop", "existing-value"),), EXISTING),  # dropExistingHeader
        ("to-drop", EXISTING + (("to-drop", "a"), ("to-drop", "b")), EXISTING),  # ...WithMultipleValues
        ("to-drop", EXISTING, EXISTING),  # dropNonExistingHeader
        (
            "a,b",
            (("a", 1), ("keep", 2), ("b", 3), ("keep", 4)),
            (("keep", 2), ("keep", 4)),
        ),  # several names, order kept
    ],
)
def test_drop_headers(drop, headers, expected):
    original = make_record("value", key="key", headers=headers, timestamp=0)
    out = conf(DropHeaders, {"headers": drop}).apply(original)
    assert out.headers == expected and out.replace(headers=original.headers) == original


def test_drop_headers_rejects_empty_list():
    with pytest.raises(ConfigError, match="transforms.t.headers: must be a non-empty list"):
        conf(DropHeaders, {"headers": ""})


@pytest.mark.parametrize(
    "header, literal, expected",
    [
        (
            "inserted",
            "inserted-value",
            EXISTING + (("inserted", "inserted-value"),),
        ),  # insertionWithExistingOtherHeader
        ("existing", "inserted-value", EXISTING + (("existing", "inserted-value"),)),  # insertionWithExistingSameHeader
        ("inserted", "1", EXISTING + (("inserted", 1),)),  # insertionWithByteHeader
        ("inserted", "true", EXISTING + (("inserted", True),)),
        ("inserted", "[1,2]", EXISTING + (("inserted", [1, 2]),)),
    ],
)
def test_insert_header(header, literal, expected):
    original = make_record("value", key="key", headers=EXISTING, timestamp=0)
    out = conf(InsertHeader, {"header": header, "value.literal": literal}).apply(original)
    assert out.headers == expected and out.replace(headers=original.headers) == original


def test_insert_header_parses_the_literal_once_with_its_schema():
    xform = conf(InsertHeader, {"header": "h", "value.literal": "1"})
    assert xform.literal_schema == Schema.INT8_SCHEMA


@pytest.mark.parametrize(
    "props, message",
    [
        ({"value.literal": "1"}, "transforms.t.header: is required"),
        ({"header": "inserted"}, "transforms.t.value.literal: is required"),
    ],
)
def test_insert_header_config_errors(props, message):
    with pytest.raises(ConfigError, match=message):
        conf(InsertHeader, props)


# --- SetSchemaMetadataTest ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "props, name, version",
    [
        ({"schema.name": "foo"}, "foo", None),  # schemaNameUpdate
        ({"schema.version": "42"}, None, 42),  # schemaVersionUpdate
        ({"schema.name": "foo", "schema.version": "42"}, "foo", 42),  # schemaNameAndVersionUpdate
    ],
)
def test_schema_metadata_update(props, name, version):
    out = conf(SetSchemaMetadataValue, props).apply(make_record(None, value_schema=SchemaBuilder.struct().build()))
    assert (out.value_schema.name, out.value_schema.version) == (name, version)


def assert_matching_schema(struct, schema):
    assert struct.schema is schema
    for field in schema.fields:
        assert struct.schema.field(field.name).schema is field.schema


ORIG = (
    SchemaBuilder.struct()
    .name("my.orig.SchemaDefn")
    .field("f1", Schema.STRING_SCHEMA)
    .field("f2", Schema.INT32_SCHEMA)
    .build()
)


def test_schema_metadata_with_struct():
    xform = conf(SetSchemaMetadataValue, {"schema.name": "foo", "schema.version": "42"})
    out = xform.apply(make_record(Struct(ORIG).put("f1", "value1").put("f2", 1), value_schema=ORIG))
    assert (out.value_schema.name, out.value_schema.version) == ("foo", 42)
    assert_matching_schema(out.value, out.value_schema)
    assert (out.value.get("f1"), out.value.get("f2")) == ("value1", 1)


@pytest.mark.parametrize("replace_null_with_default, expected", [("false", None), ("true", "default")])
def test_schema_metadata_with_struct_and_null_field(replace_null_with_default, expected):
    schema = (
        SchemaBuilder.struct()
        .name("my.orig.SchemaDefn")
        .field("f1", SchemaBuilder.string().default_value("default").optional().build())
        .field("f2", Schema.INT32_SCHEMA)
        .build()
    )
    xform = conf(
        SetSchemaMetadataValue,
        {"schema.name": "foo", "schema.version": "42", "replace.null.with.default": replace_null_with_default},
    )
    out = xform.apply(make_record(Struct(schema).put("f1", None).put("f2", 1), value_schema=schema))
    assert_matching_schema(out.value, out.value_schema)
    assert out.value.get_without_default("f1") == expected


def test_schema_metadata_requires_a_schema():
    with pytest.raises(DataError, match=r"^Schema required for \[updating schema metadata\]$"):
        conf(SetSchemaMetadataValue, {"schema.name": "x"}).apply(make_record(42))


def test_schema_metadata_ignores_schemaless_null():
    record = make_record(None)
    assert conf(SetSchemaMetadataValue, {"schema.name": "x"}).apply(record) == record


def test_schema_metadata_non_struct_value_kept():
    out = conf(SetSchemaMetadataKey, {"schema.name": "k"}).apply(
        make_record(None, key=1, key_schema=Schema.INT32_SCHEMA)
    )
    assert (out.key, out.key_schema.name) == (1, "k")


def test_schema_metadata_config_error():
    with pytest.raises(ConfigError, match="Neither schema name nor version configured"):
        conf(SetSchemaMetadataValue, {})


# --- Filter ---------------------------------------------------------------------------------------


def test_filter_drops_every_record_it_applies_to():
    assert conf(Filter, {}).apply(make_record({"a": 1})) is None
    assert conf(Filter, {}).apply(make_record(None)) is None


# --- registration -----------------------------------------------------------------------------------

KAFKA_NAMES = [
    "Cast$Key",
    "Cast$Value",
    "DropHeaders",
    "ExtractField$Key",
    "ExtractField$Value",
    "Filter",
    "Flatten$Key",
    "Flatten$Value",
    "HeaderFrom$Key",
    "HeaderFrom$Value",
    "HoistField$Key",
    "HoistField$Value",
    "InsertField$Key",
    "InsertField$Value",
    "InsertHeader",
    "MaskField$Key",
    "MaskField$Value",
    "RegexRouter",
    "ReplaceField$Key",
    "ReplaceField$Value",
    "SetSchemaMetadata$Key",
    "SetSchemaMetadata$Value",
    "TimestampConverter$Key",
    "TimestampConverter$Value",
    "TimestampRouter",
    "ValueToKey",
]


@pytest.mark.parametrize("name", KAFKA_NAMES)
def test_registered_by_short_kafka_and_lowercase_names(name):
    plugins = default_plugins()
    cls = plugins.get("transform", name)
    assert plugins.get("transform", "org.apache.kafka.connect.transforms." + name) is cls
    assert plugins.get("transform", name.lower()) is cls
    assert cls.overview() and cls.config_def is not None


# updateSchemaIn: a struct is re-created on the new schema, anything else is kept as it is.


def test_update_schema_of_struct():
    new_schema = (
        SchemaBuilder.struct()
        .name("my.updated.SchemaDefn")
        .field("f1", Schema.STRING_SCHEMA)
        .field("f2", Schema.INT32_SCHEMA)
        .build()
    )
    xform = conf(SetSchemaMetadataValue, {"schema.name": "x"})
    updated = xform._rebuild(Struct(ORIG).put("f1", "value1").put("f2", 1), new_schema)
    assert_matching_schema(updated, new_schema)


@pytest.mark.parametrize("value", [1, None])
def test_update_schema_of_non_struct_or_null(value):
    xform = conf(SetSchemaMetadataValue, {"schema.name": "x"})
    assert xform._rebuild(value, Schema.INT32_SCHEMA) is value
