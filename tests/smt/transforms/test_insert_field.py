"""InsertField, with the cases of Kafka's InsertFieldTest and our additions."""

import pytest

from smt.batch import RecordBatch
from smt.data import Schema, SchemaBuilder, Struct, Timestamp
from smt.data.logical import millis_to_datetime
from smt.errors import ConfigError, DataError
from smt.transforms.insert_field import InsertFieldKey, InsertFieldValue
from tests.smt.transforms._helpers import RaisingErrors, conf, make_record

ALL_FIELDS = {
    "topic.field": "topic_field!",
    "partition.field": "partition_field",
    "timestamp.field": "timestamp_field?",
    "static.field": "instance_id",
    "static.value": "my-instance-id",
}
SIMPLE_SCHEMA = (
    SchemaBuilder.struct().name("name").version(1).doc("doc").field("magic", Schema.OPTIONAL_INT64_SCHEMA).build()
)


# --- Kafka's InsertFieldTest ---------------------------------------------------


def test_top_level_struct_required():
    xform = conf(InsertFieldValue, {"topic.field": "topic_field"})
    with pytest.raises(DataError, match=r"Only Struct objects supported for \[field insertion\], found: int"):
        xform.apply(make_record(42, value_schema=Schema.INT32_SCHEMA, topic=""))


def test_copy_schema_and_insert_configured_fields():
    xform = conf(InsertFieldValue, ALL_FIELDS)
    record = make_record(Struct(SIMPLE_SCHEMA).put("magic", 42), value_schema=SIMPLE_SCHEMA, timestamp=789)
    out = xform.apply(record)
    schema = out.value_schema
    assert (schema.name, schema.version, schema.doc) == ("name", 1, "doc")
    assert schema.field("magic").schema == Schema.OPTIONAL_INT64_SCHEMA
    assert out.value.get("magic") == 42
    assert schema.field("topic_field").schema == Schema.STRING_SCHEMA
    assert out.value.get("topic_field") == "test"
    assert schema.field("partition_field").schema == Schema.OPTIONAL_INT32_SCHEMA
    assert out.value.get("partition_field") == 0
    assert schema.field("timestamp_field").schema == Timestamp.builder().optional().build()
    assert out.value.get("timestamp_field") == millis_to_datetime(789)
    assert schema.field("instance_id").schema == Schema.OPTIONAL_STRING_SCHEMA
    assert out.value.get("instance_id") == "my-instance-id"
    # the derived schema is cached and reused
    again = xform.apply(make_record(Struct(SIMPLE_SCHEMA), value_schema=SIMPLE_SCHEMA, partition=1))
    assert again.value_schema is out.value_schema
    assert xform.schema_cache.misses == 1


def test_schemaless_insert_configured_fields():
    xform = conf(InsertFieldValue, ALL_FIELDS)
    out = xform.apply(make_record({"magic": 42}, timestamp=123))
    assert out.value == {
        "magic": 42,
        "topic_field": "test",
        "partition_field": 0,
        "timestamp_field": 123,
        "instance_id": "my-instance-id",
    }


def test_tombstone_without_schema_left_unchanged():
    out = conf(InsertFieldValue, ALL_FIELDS).apply(make_record(None))
    assert out.value is None and out.value_schema is None


def test_tombstone_with_schema_left_unchanged():
    out = conf(InsertFieldValue, ALL_FIELDS).apply(make_record(None, value_schema=SIMPLE_SCHEMA))
    assert out.value is None and out.value_schema == SIMPLE_SCHEMA


def test_insert_key_fields_into_tombstone_event():
    out = conf(InsertFieldKey, ALL_FIELDS).apply(make_record(None, key={"magic": 42}))
    assert out.key == {"magic": 42, "topic_field": "test", "partition_field": 0, "instance_id": "my-instance-id"}
    assert out.value is None


def test_insert_into_null_key_leaves_record_unchanged():
    record = make_record({"magic": 42})
    assert conf(InsertFieldKey, ALL_FIELDS).apply(record) is record


@pytest.mark.parametrize("replace_null_with_default, expected", [("false", None), ("true", 42)])
def test_unset_optional_field(replace_null_with_default, expected):
    xform = conf(InsertFieldValue, {**ALL_FIELDS, "replace.null.with.default": replace_null_with_default})
    magic = SchemaBuilder.int64().optional().default_value(42).build()
    schema = SchemaBuilder.struct().name("name").version(1).doc("doc").field("magic_with_default", magic).build()
    out = xform.apply(make_record(Struct(schema).put("magic_with_default", None), value_schema=schema, timestamp=789))
    assert out.value_schema.field("magic_with_default").schema == magic
    assert out.value.get_without_default("magic_with_default") == expected


# --- config -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "props, message",
    [
        (
            {},
            r"^transforms.t: No field insertion configured: set one of transforms.t.topic.field, "
            r"transforms.t.partition.field, transforms.t.offset.field, transforms.t.timestamp.field, "
            r"transforms.t.static.field$",
        ),
        ({"static.field": "s"}, r"transforms.t.static.value: No value specified for static field: s"),
        (
            {"topic.field": "a.`b", "field.syntax.version": "v2"},
            r"transforms.t.topic.field: Incomplete backtick pair in path: \[a.`b\]",
        ),
        (
            {"topic.field": "t", "field.syntax.version": "V3"},
            r"transforms.t.field.syntax.version: String must be one of \(case insensitive\): V1, V2",
        ),
    ],
)
def test_config_errors(props, message):
    with pytest.raises(ConfigError, match=message):
        conf(InsertFieldValue, props)


# --- beyond Kafka -------------------------------------------------------------------


def test_offset_inserted_only_when_the_record_has_one():
    xform = conf(InsertFieldValue, {"offset.field": "off"})
    assert xform.apply(make_record({"a": 1}, offset=7)).value == {"a": 1, "off": 7}
    assert xform.apply(make_record({"a": 1}, offset=None)).value == {"a": 1}


def test_nested_path_inserts_into_nested_map_without_mutating_input():
    xform = conf(InsertFieldValue, {"topic.field": "meta.topic", "field.syntax.version": "V2"})
    value = {"meta": {"id": 1}, "x": 2}
    assert xform.apply(make_record(value)).value == {"meta": {"id": 1, "topic": "test"}, "x": 2}
    assert value == {"meta": {"id": 1}, "x": 2}


def test_batch_matches_per_record_and_reports_bad_rows():
    xform = conf(InsertFieldValue, {**ALL_FIELDS, "offset.field": "off"})
    records = [
        make_record({"a": 1}, timestamp=5, offset=3),
        make_record("not a map"),
        make_record(None),
        make_record({"b": 2}, partition=None),
    ]
    errors = RaisingErrors()
    out = xform.apply_batch(RecordBatch.from_records(records, origins=[10, 11, 12, 13]), errors)
    assert [row for row, _ in errors.failures] == [1]
    assert "found: str" in str(errors.failures[0][1])
    assert out.value == [xform.apply(records[i]).value for i in (0, 2, 3)]
    assert out.origin == [10, 12, 13]
    assert records[0].value == {"a": 1}


def test_a_required_field_with_no_metadata_is_left_null_and_fails_when_written_as_in_kafka():
    import converters
    from smt.converter import ConverterError

    schema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build()
    out = conf(InsertFieldValue, {"timestamp.field": "ts!"}).apply(
        make_record(Struct(schema).put("id", 1), value_schema=schema, timestamp=None)
    )
    assert out.value.get("ts") is None
    with pytest.raises(ConverterError, match="null value for field that is required"):
        converters.load("json").from_connect_data("t", out.value_schema, out.value)
