"""EventRouter's table.expand.json.payload: a JSON string payload becomes a struct, as Debezium 3.6.1 builds it."""

import logging

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import DataError
from tests.smt.transforms.debezium.test_event_router import insert, outbox_row, router

EXPAND = {"table.expand.json.payload": "true"}


def expanded(payload, **props):
    return router(**EXPAND, **props).apply(insert(outbox_row(payload=payload)))


def test_an_object_becomes_a_struct_named_by_the_payload_column_and_its_paths():
    out = expanded(
        '{"total": 3, "big": 12345678901, "ratio": 0.5, "paid": true, "who": {"name": "Ann"}, "tags": ["a"]}'
    )
    who = SchemaBuilder.struct().name("payload.who").optional().field("name", Schema.OPTIONAL_STRING_SCHEMA).build()
    schema = (
        SchemaBuilder.struct()
        .name("payload")
        .optional()
        .field("total", Schema.OPTIONAL_INT32_SCHEMA)
        .field("big", Schema.OPTIONAL_INT64_SCHEMA)
        .field("ratio", Schema.OPTIONAL_FLOAT64_SCHEMA)
        .field("paid", Schema.OPTIONAL_BOOLEAN_SCHEMA)
        .field("who", who)
        .field("tags", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())
        .build()
    )
    assert out.value_schema == schema
    assert out.value == (
        Struct(schema)
        .put("total", 3)
        .put("big", 12345678901)
        .put("ratio", 0.5)
        .put("paid", True)
        .put("who", Struct(who).put("name", "Ann"))
        .put("tags", ["a"])
    )


@pytest.mark.parametrize(
    ("behavior", "fields"), [("ignore", ["a"]), ("optional_bytes", ["a", "gone"]), ("OPTIONAL_BYTES", ["a", "gone"])]
)
def test_null_fields_are_left_out_or_kept_as_optional_bytes(behavior, fields):
    out = expanded('{"a": 1, "gone": null, "empty": []}', **{"table.json.payload.null.behavior": behavior})
    assert [f.name for f in out.value_schema.fields] == fields
    assert out.value.get("a") == 1
    if "gone" in fields:
        assert out.value_schema.field("gone").schema == Schema.OPTIONAL_BYTES_SCHEMA and out.value.get("gone") is None


def test_the_objects_of_an_array_are_merged_into_one_required_struct():
    out = expanded('{"lines": [{"sku": "x"}, {"sku": "y", "qty": 2}, null]}')
    line = out.value_schema.field("lines").schema.value_schema
    assert [f.name for f in line.fields] == ["sku", "qty"] and not line.optional
    # a null element does not fit the required struct: the payload stays the string, with the inferred schema
    assert out.value == '{"lines": [{"sku": "x"}, {"sku": "y", "qty": 2}, null]}'


def test_objects_of_one_shape_keep_an_optional_struct_and_nulls():
    out = expanded('{"lines": [{"sku": "x"}, null, {"sku": "y"}]}')
    assert [None if s is None else s.get("sku") for s in out.value.get("lines")] == ["x", None, "y"]


@pytest.mark.parametrize(
    "payload",
    ["plain text", ' {"a": 1}', "", '{"a": [1, "x"]}', '{"a": [1, 12345678901]}', '{"a": NaN}', '{"a": }'],
)
def test_what_cannot_be_expanded_is_kept_with_a_warning(payload, caplog):
    with caplog.at_level(logging.WARNING):
        out = expanded(payload)
    assert (out.value, out.value_schema) == (payload, Schema.OPTIONAL_STRING_SCHEMA)
    assert "JSON expansion failed" in caplog.text


@pytest.mark.parametrize(
    ("payload", "schema_type"),
    [("[1, 2]", "ARRAY"), ('{"n": 123456789012345678901234567890}', "STRUCT")],
)
def test_when_only_the_value_fails_the_string_keeps_the_inferred_schema(payload, schema_type):
    out = expanded(payload)
    assert out.value == payload and out.value_schema.type.name == schema_type


def test_an_empty_array_leaves_the_string_without_a_schema():
    out = expanded("[]")
    assert (out.value, out.value_schema) == ("[]", None)


def test_text_after_the_first_json_value_is_ignored_as_jackson_ignores_it():
    assert expanded('{"a": 1} and more').value.get("a") == 1


def test_a_payload_that_is_no_string_is_kept_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING):
        out = expanded(None)
    assert out.value is None
    assert "payload is not a string" in caplog.text


def test_in_the_envelope_the_payload_field_takes_the_expanded_schema_and_schemas_are_cached():
    xform = router(**EXPAND, **{"table.fields.additional.placement": "type:envelope"})
    first = xform.apply(insert(outbox_row(payload='{"total": 3}')))
    assert first.value_schema.field("payload").schema.name == "payload"
    assert first.value.get("payload").get("total") == 3
    again = xform.apply(insert(outbox_row(payload='{"total": 4}')))
    assert again.value_schema is first.value_schema
    other = xform.apply(insert(outbox_row(payload='{"total": "x"}')))
    assert other.value_schema.field("payload").schema.field("total").schema == Schema.OPTIONAL_STRING_SCHEMA


def test_in_the_envelope_a_string_with_an_inferred_struct_schema_fails_as_in_debezium():
    xform = router(**EXPAND, **{"table.fields.additional.placement": "type:envelope"})
    with pytest.raises(DataError, match=r"payload"):
        xform.apply(insert(outbox_row(payload='{"n": 123456789012345678901234567890}')))


def test_a_struct_payload_is_never_an_empty_payload():
    out = expanded("{}", **{"route.tombstone.on.empty.payload": "true"})
    assert out.value == Struct(out.value_schema) and out.value_schema.fields == ()


def test_in_the_envelope_an_empty_array_payload_fails_as_in_debezium():
    xform = router(**EXPAND, **{"table.fields.additional.placement": "type:envelope"})
    with pytest.raises(DataError, match=r"fieldSchema for field payload cannot be null"):
        xform.apply(insert(outbox_row(payload="[]")))
