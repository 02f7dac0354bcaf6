"""Flatten, with the cases of Kafka's FlattenTest."""

import pytest

from smt.data import Schema, SchemaBuilder, Struct, Type
from smt.errors import DataError
from smt.transforms.flatten import FlattenKey, FlattenValue
from tests.smt.transforms._helpers import conf, make_record

SUPPORTED = {
    "int8": (Schema.INT8_SCHEMA, 8),
    "int16": (Schema.INT16_SCHEMA, 16),
    "int32": (Schema.INT32_SCHEMA, 32),
    "int64": (Schema.INT64_SCHEMA, 64),
    "float32": (Schema.FLOAT32_SCHEMA, 32.0),
    "float64": (Schema.FLOAT64_SCHEMA, 64.0),
    "boolean": (Schema.BOOLEAN_SCHEMA, True),
    "string": (Schema.STRING_SCHEMA, "stringy"),
    "bytes": (Schema.BYTES_SCHEMA, b"bytes"),
}


@pytest.mark.parametrize(
    "record, message",
    [
        (
            make_record(42, value_schema=Schema.INT32_SCHEMA),
            r"Only Struct objects supported for \[flattening\], found: int",
        ),
        (make_record(42), r"Only Map objects supported in absence of schema for \[flattening\], found: int"),
    ],
)
def test_top_level_struct_or_map_required(record, message):
    with pytest.raises(DataError, match=message):
        conf(FlattenValue, {}).apply(record)


def test_nested_struct():
    builder = SchemaBuilder.struct()
    for name, (schema, _) in SUPPORTED.items():
        builder.field(name, schema)
    inner = builder.build()
    middle = SchemaBuilder.struct().field("B", inner).build()
    outer = SchemaBuilder.struct().field("A", middle).build()
    values = Struct(inner)
    for name, (_, value) in SUPPORTED.items():
        values.put(name, value)
    out = conf(FlattenValue, {}).apply(
        make_record(Struct(outer).put("A", Struct(middle).put("B", values)), value_schema=outer)
    )
    assert out.value_schema.type is Type.STRUCT and len(out.value_schema.fields) == 9
    assert {name: out.value.get(f"A.B.{name}") for name in SUPPORTED} == {n: v for n, (_, v) in SUPPORTED.items()}


def test_nested_map_with_delimiter():
    value = {"A": {"B": {name: v for name, (_, v) in SUPPORTED.items()}}}
    out = conf(FlattenValue, {"delimiter": "#"}).apply(make_record(value))
    assert out.value_schema is None
    assert out.value == {f"A#B#{name}": v for name, (_, v) in SUPPORTED.items()}


def test_optional_field_struct():
    inner = SchemaBuilder.struct().field("opt_int32", Schema.OPTIONAL_INT32_SCHEMA).build()
    outer = SchemaBuilder.struct().field("B", inner).build()
    out = conf(FlattenValue, {}).apply(
        make_record(Struct(outer).put("B", Struct(inner).put("opt_int32", None)), value_schema=outer)
    )
    assert out.value.get("B.opt_int32") is None


def test_optional_struct_tombstone_keeps_schema():
    schema = SchemaBuilder.struct().optional().field("opt_int32", Schema.OPTIONAL_INT32_SCHEMA).build()
    out = conf(FlattenValue, {}).apply(make_record(None, value_schema=schema))
    assert out.value_schema == schema and out.value is None


def test_optional_nested_struct():
    inner = SchemaBuilder.struct().optional().field("opt_int32", Schema.OPTIONAL_INT32_SCHEMA).build()
    outer = SchemaBuilder.struct().field("B", inner).build()
    out = conf(FlattenValue, {}).apply(make_record(Struct(outer).put("B", None), value_schema=outer))
    assert out.value_schema.type is Type.STRUCT and out.value.get("B.opt_int32") is None


def test_optional_field_map():
    out = conf(FlattenValue, {}).apply(make_record({"B": {"opt_int32": None}}))
    assert out.value == {"B.opt_int32": None}


def test_key():
    out = conf(FlattenKey, {}).apply(make_record(None, key={"A": {"B": 12}}))
    assert out.key_schema is None and out.key == {"A.B": 12}


def test_schemaless_array_is_copied_not_descended():
    value = {"foo": ["bar", {"baz": {"lfg": "lfg"}}]}
    assert conf(FlattenValue, {}).apply(make_record(value)).value == value


def test_array_with_schema():
    nested = SchemaBuilder.struct().field("lfg", Schema.STRING_SCHEMA).build()
    inner = SchemaBuilder.struct().field("baz", nested).build()
    schema = SchemaBuilder.struct().field("foo", SchemaBuilder.array(inner).doc("durk").build()).build()
    value = Struct(schema).put("foo", [Struct(inner).put("baz", Struct(nested).put("lfg", "lfg"))])
    out = conf(FlattenValue, {}).apply(make_record(value, value_schema=schema))
    assert out.value == value and out.value_schema == schema


def test_optional_and_default_values_nested():
    fields = (
        SchemaBuilder.struct()
        .optional()
        .field("req_field", Schema.STRING_SCHEMA)
        .field("opt_field", SchemaBuilder.string().optional().default_value("child_default").build())
    )
    default = Struct(fields.build()).put("req_field", "req_default")
    schema = fields.default_value(default).build()
    out = conf(FlattenValue, {}).apply(make_record(Struct(schema), value_schema=schema))
    assert len(out.value_schema.fields) == 2
    assert (
        out.value_schema.field("req_field").schema
        == SchemaBuilder.string().optional().default_value("req_default").build()
    )
    assert (
        out.value_schema.field("opt_field").schema
        == SchemaBuilder.string().optional().default_value("child_default").build()
    )


@pytest.mark.parametrize(
    "schema",
    [
        None,
        SchemaBuilder.struct().name("name").version(1).doc("doc").field("magic", Schema.OPTIONAL_INT64_SCHEMA).build(),
    ],
)
def test_tombstone_passes_through(schema):
    out = conf(FlattenValue, {}).apply(make_record(None, value_schema=schema))
    assert out.value is None and out.value_schema == schema


def test_map_with_null_fields_keeps_order():
    value = {
        "firstNull": None,
        "firstNonNull": "nonNull",
        "secondNull": None,
        "secondNonNull": "alsoNonNull",
        "thirdNonNull": None,
    }
    out = conf(FlattenValue, {}).apply(make_record(value))
    assert list(out.value.items()) == list(value.items())


def test_struct_with_null_fields():
    builder = SchemaBuilder.struct()
    for name in ("firstNull", "firstNonNull", "secondNull", "secondNonNull", "thirdNonNull"):
        builder.field(name, Schema.OPTIONAL_STRING_SCHEMA)
    schema = builder.build()
    value = Struct(schema).put("firstNonNull", "nonNull").put("secondNonNull", "alsoNonNull")
    assert conf(FlattenValue, {}).apply(make_record(value, value_schema=schema)).value == value


def test_map_field_with_schema_is_an_error():
    schema = SchemaBuilder.struct().field("m", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA)).build()
    with pytest.raises(
        DataError, match=r"Flatten transformation does not support MAP for record with schemas \(for field m\)."
    ):
        conf(FlattenValue, {}).apply(make_record(Struct(schema).put("m", {}), value_schema=schema))


def test_unsupported_schemaless_value():
    import decimal

    with pytest.raises(DataError, match="Flatten transformation was passed a value of type Decimal"):
        conf(FlattenValue, {}).apply(make_record({"a": decimal.Decimal(1)}))


def test_derived_schema_is_cached():
    schema = SchemaBuilder.struct().field("a", SchemaBuilder.struct().field("b", Schema.INT32_SCHEMA).build()).build()
    xform = conf(FlattenValue, {})
    inner = schema.field("a").schema
    first = xform.apply(make_record(Struct(schema).put("a", Struct(inner).put("b", 1)), value_schema=schema))
    second = xform.apply(make_record(Struct(schema).put("a", Struct(inner).put("b", 2)), value_schema=schema))
    assert first.value_schema is second.value_schema and xform.schema_cache.misses == 1
