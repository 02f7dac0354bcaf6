"""PartitionRouting: partitions from hashed envelope fields, as a Debezium connector would pick them."""

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError, DataError
from smt.plugins import default_plugins
from smt.transforms.debezium.partition_routing import PartitionRouting
from tests.smt.transforms._helpers import conf, make_record
from tests.smt.transforms.debezium._events import envelope_schema

PRODUCT = (
    SchemaBuilder.struct()
    .name("server1.inventory.product.Value")
    .field("id", Schema.INT64_SCHEMA)
    .field("price", Schema.FLOAT32_SCHEMA)
    .field("product", Schema.OPTIONAL_STRING_SCHEMA)
    .optional()
    .build()
)
SOURCE = SchemaBuilder.struct().name("source").field("table", Schema.STRING_SCHEMA).build()
ENVELOPE = envelope_schema(PRODUCT, SOURCE, ts_ms=False)


def product(id_=1, name="orange"):
    return Struct(PRODUCT).put("id", id_).put("price", 1.0).put("product", name)


def event(op="c", before=None, after=None, partition=7):
    value = Struct(ENVELOPE).put("op", op).put("before", before).put("after", after)
    value.put("source", Struct(SOURCE).put("table", "products"))
    return make_record(value, value_schema=ENVELOPE, topic="prefix.inventory.products", partition=partition)


def routing(fields, partitions=100, **extra):
    return conf(PartitionRouting, {"partition.payload.fields": fields, "partition.topic.num": partitions, **extra})


def test_java_and_murmur_pick_the_partitions_debezium_picks():
    # Debezium's own PartitionRoutingTest: id 1 and "orange" go to 39 (java) and 65 (murmur) of 100.
    record = event(after=product())
    assert routing("change.id, change.product").apply(record).partition == 39
    assert routing("change.id, change.product", **{"partition.hash.function": "MURMUR"}).apply(record).partition == 65


def test_change_reads_before_for_a_delete_and_after_otherwise():
    xform = routing("change.product", 2)
    assert xform.apply(event("d", before=product(name="APPLE"))).partition == 0
    assert xform.apply(event("c", after=product(name="APPLE"))).partition == 0
    spaced = routing("change . product", 3)
    assert spaced.apply(event("c", after=product(name="orange"))).partition == 1


def test_missing_fields_are_left_out_and_none_found_leaves_the_record():
    xform = routing("after.not_existing,change.product", 3)
    assert xform.apply(event(after=product())).partition == 1
    record = event(after=product(name=None))
    assert routing("after.not_existing,change.product").apply(record) is record  # null values are left out too
    assert routing("source.table.deeper,source.nothing").apply(record) is record


def test_top_level_and_source_fields():
    assert routing("op", 100).apply(event("c", after=product())).partition == 99  # "c".hashCode() is 99
    # "products".hashCode() is -1003761308; its sign bit cleared, modulo 100: 40
    assert routing("source.table", 100).apply(event("c", after=product())).partition == 40


def test_a_path_through_a_null_struct_fails_the_record():
    with pytest.raises(DataError, match=r"Unprocessable message: after is null, so transforms\.t\.partition\.payload"):
        routing("after.id").apply(event("d", before=product()))


def test_a_struct_value_fails_naming_the_entry():
    with pytest.raises(DataError, match=r"transforms\.t\.partition\.payload\.fields entry after: a struct has no"):
        routing("after").apply(event(after=product()))


@pytest.mark.parametrize("op", ["t", "m"])
def test_truncate_and_message_events_tombstones_and_non_envelopes_pass(op):
    xform = routing("op")
    schemaless = make_record({"op": "c", "after": {"id": 1}})
    tombstone = make_record(None, value_schema=ENVELOPE)
    other = SchemaBuilder.struct().name("server1.inventory.product.Value").field("op", Schema.STRING_SCHEMA).build()
    not_envelope = make_record(Struct(other).put("op", "c"), value_schema=other)
    for record in (event(op), schemaless, tombstone, not_envelope):
        assert xform.apply(record) is record


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"partition.topic.num": 2}, r"transforms\.t\.partition\.payload\.fields"),
        ({"partition.payload.fields": "op"}, r"transforms\.t\.partition\.topic\.num"),
        ({"partition.payload.fields": "", "partition.topic.num": 2}, r"payload\.fields.*A value is required"),
        (
            {"partition.payload.fields": ",source.table", "partition.topic.num": 2},
            r"transforms\.t\.partition\.payload\.fields.*Empty string element\(s\) not permitted",
        ),
        (
            {"partition.payload.fields": "op", "partition.topic.num": 0},
            r"transforms\.t\.partition\.topic\.num.*A positive, non-zero integer value is expected",
        ),
        (
            {"partition.payload.fields": "op", "partition.topic.num": 2, "partition.hash.function": "murmer"},
            r"transforms\.t\.partition\.hash\.function.*must be one of java, murmur",
        ),
    ],
)
def test_config_rejections_name_the_key(props, message):
    with pytest.raises(ConfigError, match=message):
        conf(PartitionRouting, props)


def test_registered_under_debezium_class_name():
    found = default_plugins().get("transform", "io.debezium.transforms.partitions.PartitionRouting")
    assert found is PartitionRouting


def test_change_without_a_string_op_leaves_the_entry_out():
    for op_schema in (None, Schema.INT32_SCHEMA):
        builder = SchemaBuilder.struct().name("x.Envelope").field("after", PRODUCT)
        envelope = (builder if op_schema is None else builder.field("op", op_schema)).build()
        value = Struct(envelope).put("after", product())
        if op_schema is not None:
            value.put("op", 1)
        record = make_record(value, value_schema=envelope)
        assert routing("change.product").apply(record) is record
        assert routing("after.product").apply(record).partition == 38  # "orange".hashCode() is -1008851410
