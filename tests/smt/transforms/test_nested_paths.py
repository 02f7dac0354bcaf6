"""V2 field paths on every field-taking SMT, schemaless and with schemas (beyond Kafka)."""

import datetime as dt

import pytest

from smt.data import Schema, SchemaBuilder, Struct, Timestamp
from smt.transforms.cast import CastValue
from smt.transforms.extract_field import ExtractFieldValue
from smt.transforms.header_from import HeaderFromValue
from smt.transforms.insert_field import InsertFieldValue
from smt.transforms.mask_field import MaskFieldValue
from smt.transforms.timestamp_converter import TimestampConverterValue
from smt.transforms.value_to_key import ValueToKey
from tests.smt.transforms._helpers import conf, make_record

V2 = {"field.syntax.version": "V2"}
UTC = dt.timezone.utc
INNER = (
    SchemaBuilder.struct()
    .optional()
    .field("card", Schema.STRING_SCHEMA)
    .field("ts", Schema.INT64_SCHEMA)
    .field("n", Schema.STRING_SCHEMA)
    .build()
)
OUTER = SchemaBuilder.struct().name("order").field("id", Schema.INT32_SCHEMA).field("pay", INNER).build()


def order(card="4111", ts=86_400_000, n="7"):
    return Struct(OUTER).put("id", 1).put("pay", Struct(INNER).put("card", card).put("ts", ts).put("n", n))


SCHEMALESS = [  # (transform, props, value, expected value)
    (MaskFieldValue, {"fields": "pay.card"}, {"pay": {"card": "4111", "n": 1}}, {"pay": {"card": "", "n": 1}}),
    (CastValue, {"spec": "pay.n:int32"}, {"pay": {"n": "7"}}, {"pay": {"n": 7}}),
    (
        TimestampConverterValue,
        {"field": "pay.ts", "target.type": "string", "format": "yyyy-MM-dd"},
        {"pay": {"ts": 86_400_000}},
        {"pay": {"ts": "1970-01-02"}},
    ),
    (InsertFieldValue, {"topic.field": "meta.topic"}, {"meta": {}}, {"meta": {"topic": "test"}}),
    (ExtractFieldValue, {"field": "pay.card"}, {"pay": {"card": "4111"}}, "4111"),
    (MaskFieldValue, {"fields": "`a.b`"}, {"a.b": "x", "a": {"b": "y"}}, {"a.b": "", "a": {"b": "y"}}),
    (MaskFieldValue, {"fields": "missing.card"}, {"pay": 1}, {"pay": 1}),
]


@pytest.mark.parametrize("cls, props, value, expected", SCHEMALESS)
def test_schemaless_nested(cls, props, value, expected):
    assert conf(cls, {**props, **V2}).apply(make_record(value)).value == expected


def test_mask_nested_struct_keeps_schema():
    out = conf(MaskFieldValue, {"fields": "pay.card", **V2}).apply(make_record(order(), value_schema=OUTER))
    assert out.value_schema is OUTER
    assert out.value.get("pay").get("card") == "" and out.value.get("pay").get("n") == "7"


def test_cast_nested_struct():
    xform = conf(CastValue, {"spec": "pay.n:int32", **V2})
    out = xform.apply(make_record(order(), value_schema=OUTER))
    pay_schema = out.value_schema.field("pay").schema
    assert pay_schema.field("n").schema == Schema.INT32_SCHEMA and pay_schema.optional
    assert out.value.get("pay").get("n") == 7 and out.value.get("id") == 1
    assert out.value_schema.name == "order"


def test_timestamp_converter_nested_struct():
    xform = conf(TimestampConverterValue, {"field": "pay.ts", "target.type": "Timestamp", **V2})
    out = xform.apply(make_record(order(), value_schema=OUTER))
    assert out.value_schema.field("pay").schema.field("ts").schema == Timestamp.SCHEMA
    assert out.value.get("pay").get("ts") == dt.datetime(1970, 1, 2, tzinfo=UTC)


def test_timestamp_converter_does_not_touch_a_top_level_field_of_the_same_name():
    schema = SchemaBuilder.struct().field("ts", Schema.STRING_SCHEMA).field("pay", INNER).build()
    value = Struct(schema).put("ts", "keep").put("pay", Struct(INNER).put("card", "c").put("ts", 0).put("n", "n"))
    out = conf(TimestampConverterValue, {"field": "pay.ts", "target.type": "unix", **V2}).apply(
        make_record(value, value_schema=schema)
    )
    assert out.value.get("ts") == "keep"


def test_insert_field_into_nested_struct():
    xform = conf(InsertFieldValue, {"topic.field": "pay.topic", "timestamp.field": "ts!", **V2})
    out = xform.apply(make_record(order(), value_schema=OUTER, timestamp=5))
    assert out.value_schema.field("pay").schema.field("topic").schema == Schema.OPTIONAL_STRING_SCHEMA
    assert out.value_schema.field("ts").schema == Timestamp.SCHEMA
    assert out.value.get("pay").get("topic") == "test"
    assert out.value.get("ts") == dt.datetime(1970, 1, 1, 0, 0, 0, 5000, tzinfo=UTC)
    assert out.value.get("pay").get("card") == "4111"


def test_extract_and_header_from_nested_struct():
    record = make_record(order(), value_schema=OUTER)
    out = conf(ExtractFieldValue, {"field": "pay.card", **V2}).apply(record)
    assert (out.value_schema, out.value) == (Schema.STRING_SCHEMA, "4111")
    out = conf(HeaderFromValue, {"fields": "pay.card", "headers": "card", "operation": "copy", **V2}).apply(record)
    assert out.headers == (("card", "4111"),)


def test_value_to_key_nested_schemaless():
    out = conf(ValueToKey, {"fields": "pay.card,id", **V2}).apply(make_record({"id": 1, "pay": {"card": "x", "n": 2}}))
    assert out.key == {"pay": {"card": "x"}, "id": 1}


def test_value_to_key_nested_struct():
    xform = conf(ValueToKey, {"fields": "pay.card,id", **V2})
    out = xform.apply(make_record(order(), value_schema=OUTER))
    pay_key = out.key_schema.field("pay").schema
    assert [f.name for f in pay_key.fields] == ["card"] and pay_key.optional
    assert out.key.get("pay").get("card") == "4111" and out.key.get("id") == 1
    with pytest.raises(Exception, match="Field does not exist: pay.nope"):
        conf(ValueToKey, {"fields": "pay.nope", **V2}).apply(make_record(order(), value_schema=OUTER))


def test_header_from_moves_nested_fields():
    xform = conf(HeaderFromValue, {"fields": "pay.card,id", "headers": "card,id", "operation": "move", **V2})
    out = xform.apply(make_record({"id": 1, "pay": {"card": "4111", "n": 2}}))
    assert out.value == {"pay": {"n": 2}} and out.headers == (("card", "4111"), ("id", 1))
    out = xform.apply(make_record(order(), value_schema=OUTER))
    assert [f.name for f in out.value_schema.fields] == ["pay"]
    assert [f.name for f in out.value_schema.field("pay").schema.fields] == ["ts", "n"]
    assert out.headers == (("card", "4111"), ("id", 1))
