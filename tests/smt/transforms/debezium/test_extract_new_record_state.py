"""ExtractNewRecordState on PostgreSQL-layout change events, schema'd and schemaless."""

import logging

import pytest

from smt.batch import RecordBatch
from smt.chain import TransformChain
from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError, DataError
from smt.plugins import default_plugins
from smt.transforms.debezium.extract_new_record_state import ExtractNewRecordState
from tests.smt.transforms._helpers import conf, make_record
from tests.smt.transforms.debezium._events import POSTGRES_SOURCE, SOURCE_FIELDS, envelope_schema, struct_schema

ROW = struct_schema(
    "server.public.customers.Value", {"id": Schema.INT32_SCHEMA, "email": Schema.OPTIONAL_STRING_SCHEMA}, optional=True
)
SOURCE = struct_schema(POSTGRES_SOURCE, {**SOURCE_FIELDS, "lsn": Schema.OPTIONAL_INT64_SCHEMA})
TRANSACTION = struct_schema(
    "event.block", {"id": Schema.STRING_SCHEMA, "total_order": Schema.INT64_SCHEMA}, optional=True
)
ENVELOPE = envelope_schema(ROW, SOURCE, TRANSACTION)


def row(id_, email):
    return Struct(ROW).put("id", id_).put("email", email)


def event(op, before=None, after=None, lsn=33):
    source = Struct(SOURCE).put("version", "3.6.1.Final").put("db", "shop").put("table", "customers")
    source.put("ts_ms", 1000).put("lsn", lsn)
    value = Struct(ENVELOPE).put("op", op).put("ts_ms", 2000).put("source", source)
    value.put("before", before).put("after", after)
    value.put("transaction", Struct(TRANSACTION).put("id", "tx-7").put("total_order", 3))
    return make_record(value, value_schema=ENVELOPE, key={"id": 1}, topic="server.public.customers")


def unwrap(props=None):
    return conf(ExtractNewRecordState, props or {})


def test_create_read_update_become_the_after_state():
    xform = unwrap()
    for op in ("c", "r", "u"):
        out = xform.apply(event(op, before=row(1, "old"), after=row(1, "new")))
        # Debezium rebuilds the schema as Kafka's copySchemaBasics does: name and fields, not optionality.
        assert (out.value_schema.name, out.value_schema.fields) == (ROW.name, ROW.fields)
        assert not out.value_schema.optional
        assert (out.value.get("id"), out.value.get("email")) == (1, "new")
        assert out.topic == "server.public.customers"


@pytest.mark.parametrize(
    ("mode", "delete_value", "tombstone_kept"),
    [
        ("drop", "dropped", False),
        ("tombstone", "null", False),
        ("rewrite", "rewritten", False),
        ("rewrite-with-tombstone", "rewritten", True),
        ("delete-to-tombstone", "tombstone", False),
    ],
)
def test_delete_and_tombstone_handling_modes(mode, delete_value, tombstone_kept):
    xform = unwrap({"delete.tombstone.handling.mode": mode})
    out = xform.apply(event("d", before=row(1, "gone")))
    if delete_value == "dropped":
        assert out is None
    elif delete_value == "null":
        assert (out.value, out.value_schema) == (None, ROW)
    elif delete_value == "tombstone":
        assert (out.value, out.value_schema) == (None, None)
    else:
        assert out.value.get("email") == "gone"
        assert out.value.get("__deleted") == "true"
        assert out.value_schema.field("__deleted").schema == Schema.OPTIONAL_STRING_SCHEMA
    tombstone = make_record(None, key={"id": 1})
    if tombstone_kept:
        assert xform.apply(tombstone) is tombstone
    else:
        assert xform.apply(tombstone) is None


def test_rewrite_marks_live_rows_not_deleted():
    out = unwrap({"delete.tombstone.handling.mode": "rewrite"}).apply(event("c", after=row(2, "a@b")))
    assert out.value.get("__deleted") == "false"
    assert out.value.get("email") == "a@b"


def test_add_fields_reads_envelope_then_source_and_renames():
    xform = unwrap({"add.fields": "op,table,lsn,source.ts_ms,transaction.id,ts_ms:event_ms"})
    out = xform.apply(event("u", before=row(1, "x"), after=row(1, "y"), lsn=77))
    names = [f.name for f in out.value_schema.fields]
    assert names == ["id", "email", "__op", "__table", "__lsn", "__source_ts_ms", "__transaction_id", "__event_ms"]
    values = [out.value.get(n) for n in names[2:]]
    assert values == ["u", "customers", 77, 1000, "tx-7", 2000]
    assert all(f.schema.optional for f in out.value_schema.fields[2:])
    again = xform.apply(event("c", after=row(2, "z")))
    assert again.value_schema is out.value_schema
    assert xform.schema_cache.misses == 1


def test_add_fields_prefix_and_headers():
    xform = unwrap(
        {"add.fields": "op", "add.fields.prefix": "cdc_", "add.headers": "db,op", "add.headers.prefix": "h_"}
    )
    out = xform.apply(event("c", after=row(3, "q")))
    assert out.value.get("cdc_op") == "c"
    assert out.headers == (("h_db", "shop"), ("h_op", "c"))


def test_route_by_field_sets_the_topic_from_the_row():
    out = unwrap({"route.by.field": "email"}).apply(event("c", after=row(3, "orders")))
    assert out.topic == "orders"


def test_truncate_events_are_dropped_and_non_envelopes_pass():
    xform = unwrap()
    assert xform.apply(event("t")) is None
    schemaless = make_record({"before": None, "after": {"id": 1}, "op": "c"})
    assert xform.apply(schemaless) is schemaless
    plain = make_record(row(1, "a"), value_schema=ROW)
    assert xform.apply(plain) is plain


def test_obsolete_keys_are_ignored_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING):
        xform = unwrap({"drop.tombstones": "true", "delete.handling.mode": "rewrite"})
    assert "transforms.t.drop.tombstones is ignored" in caplog.text
    assert "use transforms.t.delete.tombstone.handling.mode instead" in caplog.text
    assert "transforms.t.delete.handling.mode is ignored" in caplog.text
    out = xform.apply(event("d", before=row(1, "gone")))
    assert out.value is None  # the default mode, tombstone, not the obsolete rewrite


def test_config_rejections_name_the_key():
    with pytest.raises(ConfigError, match=r"delete\.tombstone\.handling\.mode.*must be one of"):
        unwrap({"delete.tombstone.handling.mode": "none"})
    with pytest.raises(ConfigError, match=r"transforms\.t\.add\.fields.*struct\.field"):
        unwrap({"add.fields": "a.b.c"})
    with pytest.raises(ConfigError, match=r"transforms\.t\.drop\.fields\.from\.key"):
        unwrap({"drop.fields.from.key": "maybe"})


def test_the_mode_is_read_ignoring_case_and_one_rename_is_allowed():
    out = unwrap({"delete.tombstone.handling.mode": "REWRITE"}).apply(event("d", before=row(1, "gone")))
    assert out.value.get("__deleted") == "true"
    with pytest.raises(ConfigError, match=r"transforms\.t\.add\.headers.*struct\.field or either with :new_name"):
        unwrap({"add.headers": "op:x:y"})


def test_the_drop_header_removes_optional_fields_from_value_and_key():
    xform = unwrap({"drop.fields.header.name": "drop", "drop.fields.from.key": "true"})
    key_schema = SchemaBuilder.struct().name("k.Key").field("id", Schema.INT32_SCHEMA)
    key_schema = key_schema.field("email", Schema.OPTIONAL_STRING_SCHEMA).build()
    record = event("u", before=row(1, "old"), after=row(1, "new"))
    record = record.replace(key=Struct(key_schema).put("id", 1).put("email", "e"), key_schema=key_schema)
    out = xform.apply(record.with_header("drop", b'["email","id"]'))  # as read: bytes
    assert [f.name for f in out.value_schema.fields] == ["id"]  # id is required: kept
    assert [f.name for f in out.key_schema.fields] == ["id"]
    assert not out.value_schema.optional  # Kafka's ReplaceField copies the basics, not optionality


def test_without_schema_compatibility_required_fields_are_dropped_too():
    xform = unwrap({"drop.fields.header.name": "drop", "drop.fields.keep.schema.compatible": "false"})
    out = xform.apply(event("c", after=row(1, "new")).with_header("drop", ["id"]))
    assert [f.name for f in out.value_schema.fields] == ["email"]


def test_a_drop_header_that_is_no_list_fails_the_record():
    xform = unwrap({"drop.fields.header.name": "drop"})
    with pytest.raises(DataError, match=r"the drop header must hold a list of field names, found: str"):
        xform.apply(event("c", after=row(1, "new")).with_header("drop", "email"))


def test_route_by_field_fails_on_a_row_without_that_string_field():
    with pytest.raises(DataError, match=r"^region is not a valid field name$"):
        unwrap({"route.by.field": "region"}).apply(event("c", after=row(1, "new")))
    with pytest.raises(DataError, match=r"Field 'id' is not of type STRING"):
        unwrap({"route.by.field": "id"}).apply(event("c", after=row(1, "new")))


def test_registered_under_debeziums_class_name():
    found = default_plugins().get("transform", "io.debezium.transforms.ExtractNewRecordState")
    assert found is ExtractNewRecordState


def test_bare_transaction_names_read_the_transaction_block_and_deleted_comes_first():
    xform = unwrap({"add.fields": "id,total_order,db", "delete.tombstone.handling.mode": "rewrite"})
    out = xform.apply(event("d", before=row(5, "gone")))
    names = [f.name for f in out.value_schema.fields]
    assert names == ["id", "email", "__deleted", "__id", "__total_order", "__db"]
    assert [out.value.get(n) for n in names[2:]] == ["true", "tx-7", 3, "shop"]


def test_kept_tombstones_get_only_the_op_header_as_d():
    xform = unwrap({"delete.tombstone.handling.mode": "rewrite-with-tombstone", "add.headers": "op,table"})
    out = xform.apply(make_record(None, key={"id": 1}))
    assert out.headers == (("__op", "d"),)


def test_route_by_field_of_a_delete_reads_the_before_state():
    xform = unwrap({"route.by.field": "email"})
    out = xform.apply(event("d", before=row(1, "archive")))
    assert (out.topic, out.value) == ("archive", None)


def test_a_null_after_reads_as_its_struct_default_whatever_replace_null_with_default_says():
    plain = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).optional().build()
    fallback = Struct(plain).put("id", -1)
    row_schema = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).optional().default_value(fallback).build()
    envelope_schema = (
        SchemaBuilder.struct()
        .name("s.t.Envelope")
        .field("before", row_schema)
        .field("after", row_schema)
        .field("op", Schema.STRING_SCHEMA)
        .build()
    )
    envelope = Struct(envelope_schema).put("op", "d").put("before", Struct(row_schema).put("id", 4))
    record = make_record(envelope, value_schema=envelope_schema)
    # Debezium's ExtractField delegate gets no replace.null.with.default: Kafka's default, true.
    assert unwrap().apply(record).value.get("id") == -1
    assert unwrap({"replace.null.with.default": "false"}).apply(record).value.get("id") == -1


def test_replace_null_with_default_decides_the_rewritten_fields():
    schema = SchemaBuilder.struct().name("s.t.Value").field("n", SchemaBuilder.int32().optional().default_value(7))
    schema = schema.optional().build()
    envelope_schema = (
        SchemaBuilder.struct().name("s.t.Envelope").field("before", schema).field("after", schema)
        .field("op", Schema.STRING_SCHEMA).build()
    )  # fmt: skip
    envelope = Struct(envelope_schema).put("op", "c").put("after", Struct(schema).put("n", None))
    record = make_record(envelope, value_schema=envelope_schema)
    rewrite = {"delete.tombstone.handling.mode": "rewrite"}
    assert unwrap(rewrite).apply(record).value.get_without_default("n") == 7
    assert (
        unwrap({**rewrite, "replace.null.with.default": "false"}).apply(record).value.get_without_default("n") is None
    )


CDC_PROPERTIES = {
    "transforms": "unwrap,mask,dropTombstones",
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    "transforms.unwrap.delete.tombstone.handling.mode": "rewrite-with-tombstone",
    "transforms.unwrap.add.fields": "op,table",
    "transforms.mask.type": "org.apache.kafka.connect.transforms.MaskField$Value",
    "transforms.mask.fields": "email",
    "transforms.mask.predicate": "isTombstone",
    "transforms.mask.negate": "true",
    "transforms.dropTombstones.type": "io.confluent.connect.transforms.TombstoneHandler",
    "transforms.dropTombstones.behavior": "ignore",
    "predicates": "isTombstone",
    "predicates.isTombstone.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
}


@pytest.mark.parametrize("per_batch", [False, True], ids=["per-record", "per-batch"])
def test_a_connector_file_chain_unwraps_masks_and_drops_tombstones(per_batch):
    records = [
        event("c", after=row(1, "a@b")),
        event("d", before=row(1, "a@b")),
        make_record(None, key={"id": 1}, topic="server.public.customers"),
    ]
    chain = TransformChain.from_properties(CDC_PROPERTIES)
    if per_batch:
        out = list(chain.apply_batch(RecordBatch.from_records(records)).records())
    else:
        out = [r for record in records for r in chain.apply(record)]
    rows = [[o.value.get(f.name) for f in o.value_schema.fields] for o in out]
    assert rows == [[1, "", "false", "c", "customers"], [1, "", "true", "d", "customers"]]


@pytest.mark.parametrize("optional_state", [True, False])
@pytest.mark.parametrize("mode", ["drop", "rewrite"])
def test_a_null_in_a_required_field_of_the_state_fails_as_kafkas_put_of_the_copy_would(mode, optional_state):
    """A struct left with a null in a required field (a plugin that never put it) is refused when the
    state is copied, with or without fields to add, as Debezium's copy with Kafka's ``Struct.put`` is;
    also where the copy's schema equals the state's (a required state, nothing added)."""
    state = struct_schema(ROW.name, {"id": Schema.INT32_SCHEMA, "email": Schema.OPTIONAL_STRING_SCHEMA},
                          optional=optional_state)  # fmt: skip
    envelope = envelope_schema(state, SOURCE, TRANSACTION)
    change = event("c")
    value = Struct(envelope).put("op", "c").put("ts_ms", 2000).put("source", change.value.get("source"))
    value.put_valid(envelope.field("after"), Struct(state).put("email", "x"))  # id is required and never put
    record = change.replace(value=value, value_schema=envelope)
    for props in ({}, {"add.fields": "op"}):
        with pytest.raises(DataError, match='Invalid value: null used for required field: "id", schema type: INT32'):
            unwrap({"delete.tombstone.handling.mode": mode, **props}).apply(record)
