"""Cast, with the cases of Kafka's CastTest (schemaless and with schemas) and Java's number rules."""

import datetime as dt
import decimal

import pytest

from smt.data import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp, Type
from smt.data.float32 import Float32
from smt.errors import ConfigError, DataError
from smt.transforms.cast import CastKey, CastValue
from tests.smt.transforms._helpers import conf, make_record

UTC = dt.timezone.utc
DAY = dt.timedelta(days=1)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "Must specify at least one field to cast."),
        ("foo:faketype", "Invalid type found in casting spec: faketype"),
        ("foo:array", r"Cast transformation does not support casting to ARRAY; supported types are \[INT8, "),
        ("array", "Cast transformation does not support casting to ARRAY"),
        ("foo:bytes", "Cast transformation does not support casting to BYTES"),
        ("foo:int8:extra", "transforms.t.spec: Invalid rename mapping: foo:int8:extra"),
        ("foo:int8,int32", "may only specify a single cast in their spec"),
    ],
)
def test_config_errors(spec, message):
    with pytest.raises(ConfigError, match=message):
        conf(CastKey, {"spec": spec})


@pytest.mark.parametrize(
    "cls, record",
    [
        (CastValue, make_record(None, key="key", key_schema=Schema.STRING_SCHEMA, value_schema=Schema.STRING_SCHEMA)),
        (CastValue, make_record(None, key="key", key_schema=Schema.STRING_SCHEMA)),
        (CastKey, make_record("value", key=None, key_schema=Schema.STRING_SCHEMA, value_schema=Schema.STRING_SCHEMA)),
        (CastKey, make_record("value", key=None, value_schema=Schema.STRING_SCHEMA)),
    ],
)
def test_null_key_or_value_passes_through(cls, record):
    assert conf(cls, {"spec": "foo:int64"}).apply(record) == record


@pytest.mark.parametrize("replace_null_with_default, expected", [("false", None), ("true", "10")])
def test_field_with_default_value(replace_null_with_default, expected):
    schema = SchemaBuilder.struct().field("magic", SchemaBuilder.int32().optional().default_value(10).build()).build()
    xform = conf(CastValue, {"spec": "magic:string", "replace.null.with.default": replace_null_with_default})
    out = xform.apply(make_record(Struct(schema).put("magic", None), value_schema=schema))
    assert out.value_schema.field("magic").schema.type is Type.STRING
    assert out.value.get_without_default("magic") == expected


def test_whole_key_with_schema():
    out = conf(CastKey, {"spec": "int8"}).apply(
        make_record("bogus", key=42, key_schema=Schema.INT32_SCHEMA, value_schema=Schema.STRING_SCHEMA)
    )
    assert (out.key_schema.type, out.key) == (Type.INT8, 42)


WHOLE_VALUE_CASES = [  # (spec, input, expected) — Kafka's castWholeRecordValue* cases
    ("int8", 42, 42),
    ("int16", 42, 42),
    ("int32", 42, 42),
    ("int64", 42, 42),
    ("float32", 42, Float32(42.0)),
    ("float64", 42, 42.0),
    ("boolean", 42, True),
    ("boolean", 0, False),
    ("string", 42, "42"),
]


@pytest.mark.parametrize("spec, value, expected", WHOLE_VALUE_CASES)
def test_whole_value_with_schema(spec, value, expected):
    out = conf(CastValue, {"spec": spec}).apply(make_record(value, value_schema=Schema.INT32_SCHEMA))
    assert out.value_schema.type is Type(spec)
    assert out.value == expected and type(out.value) is type(expected)


@pytest.mark.parametrize("spec, value, expected", WHOLE_VALUE_CASES)
def test_whole_value_schemaless(spec, value, expected):
    out = conf(CastValue, {"spec": spec}).apply(make_record(value))
    assert out.value_schema is None
    assert out.value == expected and type(out.value) is type(expected)


def test_whole_key_schemaless():
    out = conf(CastKey, {"spec": "int8"}).apply(make_record("bogus", key=42, value_schema=Schema.STRING_SCHEMA))
    assert (out.key_schema, out.key) == (None, 42)


def test_whole_big_decimal_to_string():
    out = conf(CastValue, {"spec": "string"}).apply(make_record(decimal.Decimal(42), value_schema=Decimal.schema(0)))
    assert (out.value_schema.type, out.value) == (Type.STRING, "42")


def test_whole_timestamp_to_string():
    out = conf(CastValue, {"spec": "string"}).apply(
        make_record(EPOCH + DAY + dt.timedelta(milliseconds=1), value_schema=Timestamp.SCHEMA)
    )
    assert out.value == "1970-01-02T00:00:00.001Z"


def test_whole_value_default_is_cast():
    schema = SchemaBuilder.float32().default_value(-42.125).build()
    out = conf(CastValue, {"spec": "int32"}).apply(make_record(42.125, value_schema=schema))
    assert (out.value_schema.type, out.value, out.value_schema.default) == (Type.INT32, 42, -42)


@pytest.mark.parametrize(
    "value, message",
    [
        (["foo"], r"does not support casting from ARRAY"),
        ({"a": 1}, r"does not support casting from MAP"),
        (dt.date(1970, 1, 2), "was passed a value of type date which is not supported by Connect's data API"),
    ],
)
def test_whole_value_schemaless_unsupported(value, message):
    with pytest.raises(DataError, match=message):
        conf(CastValue, {"spec": "int8"}).apply(make_record(value))


def test_logical_to_primitive():
    spec = (
        "date_to_int32:int32,timestamp_to_int64:int64,time_to_int64:int64,decimal_to_int32:int32,"
        "timestamp_to_float64:float64,null_timestamp_to_int32:int32"
    )
    schema = (
        SchemaBuilder.struct()
        .field("date_to_int32", Date.SCHEMA)
        .field("timestamp_to_int64", Timestamp.SCHEMA)
        .field("time_to_int64", Time.SCHEMA)
        .field("decimal_to_int32", Decimal.schema(0))
        .field("timestamp_to_float64", Timestamp.SCHEMA)
        .field("null_timestamp_to_int32", Timestamp.builder().optional().build())
        .build()
    )
    value = (
        Struct(schema)
        .put("date_to_int32", dt.date(1970, 1, 2))
        .put("timestamp_to_int64", EPOCH)
        .put("time_to_int64", dt.time(0, 0, 0, 1000))
        .put("decimal_to_int32", decimal.Decimal(2**31))
        .put("timestamp_to_float64", dt.datetime(9999, 12, 31, tzinfo=UTC))
    )
    out = conf(CastValue, {"spec": spec}).apply(make_record(value, value_schema=schema)).value
    assert out.get("date_to_int32") == 1
    assert out.get("timestamp_to_int64") == 0
    assert out.get("time_to_int64") == 1
    assert out.get("decimal_to_int32") == -(2**31)
    assert out.get("timestamp_to_float64") == 253402214400000.0
    assert out.get("null_timestamp_to_int32") is None
    types = {f.name: f.schema.type for f in out.schema.fields}
    assert types == {
        "date_to_int32": Type.INT32,
        "timestamp_to_int64": Type.INT64,
        "time_to_int64": Type.INT64,
        "decimal_to_int32": Type.INT32,
        "timestamp_to_float64": Type.FLOAT64,
        "null_timestamp_to_int32": Type.INT32,
    }


def test_logical_to_string():
    schema = (
        SchemaBuilder.struct()
        .field("date", Date.SCHEMA)
        .field("decimal", Decimal.schema(0))
        .field("time", Time.SCHEMA)
        .field("timestamp", Timestamp.SCHEMA)
        .build()
    )
    value = (
        Struct(schema)
        .put("date", dt.date(1970, 1, 2))
        .put("decimal", decimal.Decimal(1982))
        .put("time", dt.time(1))
        .put("timestamp", dt.datetime(2017, 1, 3, 6, 30, 1, 864000, tzinfo=UTC))
    )
    out = (
        conf(CastValue, {"spec": "date:string,decimal:string,time:string,timestamp:string"})
        .apply(make_record(value, value_schema=schema))
        .value
    )
    assert [out.get(n) for n in ("date", "decimal", "time", "timestamp")] == [
        "1970-01-02",
        "1982",
        "01:00:00.000Z",
        "2017-01-03T06:30:01.864Z",
    ]
    assert {f.schema.type for f in out.schema.fields} == {Type.STRING}


def test_fields_with_schema():
    spec = (
        "int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,boolean:int8,"
        "string:int32,bigdecimal:string,date:string,optional:int32,bytes:string,byteArray:string"
    )
    schema = (
        SchemaBuilder.struct()
        .field("int8", Schema.INT8_SCHEMA)
        .field("int16", Schema.OPTIONAL_INT16_SCHEMA)
        .field("int32", SchemaBuilder.int32().default_value(2).build())
        .field("int64", Schema.INT64_SCHEMA)
        .field("float32", Schema.FLOAT32_SCHEMA)
        .field("float64", SchemaBuilder.float64().default_value(-1.125).build())
        .field("boolean", Schema.BOOLEAN_SCHEMA)
        .field("string", Schema.STRING_SCHEMA)
        .field("bigdecimal", Decimal.schema(0))
        .field("date", Date.SCHEMA)
        .field("optional", Schema.OPTIONAL_FLOAT32_SCHEMA)
        .field("timestamp", Timestamp.SCHEMA)
        .field("bytes", Schema.BYTES_SCHEMA)
        .field("byteArray", Schema.BYTES_SCHEMA)
        .build()
    )
    raw = bytes([0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10])
    value = (
        Struct(schema)
        .put("int8", 8)
        .put("int16", 16)
        .put("int32", 32)
        .put("int64", 64)
        .put("float32", 32.0)
        .put("float64", -64.0)
        .put("boolean", True)
        .put("bigdecimal", decimal.Decimal(42))
        .put("date", dt.date(1970, 1, 2))
        .put("string", "42")
        .put("timestamp", EPOCH)
        .put("bytes", raw)
        .put("byteArray", raw)
    )
    out = conf(CastValue, {"spec": spec}).apply(make_record(value, value_schema=schema)).value
    expected = {
        "int8": 8,
        "int16": 16,
        "int32": 32,
        "int64": True,
        "float32": 32.0,
        "float64": True,
        "boolean": 1,
        "string": 42,
        "bigdecimal": "42",
        "date": "1970-01-02",
        "timestamp": EPOCH,
        "bytes": "/ty6mHZUMhA=",
        "byteArray": "/ty6mHZUMhA=",
        "optional": None,
    }
    assert {name: out.get(name) for name in expected} == expected
    fields = out.schema
    assert fields.field("int16").schema.optional
    assert fields.field("int32").schema.default == 2
    assert fields.field("float64").schema.default is True
    assert {f.name: f.schema.type.value for f in fields.fields} == {
        "int8": "int16",
        "int16": "int32",
        "int32": "int64",
        "int64": "boolean",
        "float32": "float64",
        "float64": "boolean",
        "boolean": "int8",
        "string": "int32",
        "bigdecimal": "string",
        "date": "string",
        "optional": "int32",
        "timestamp": "int64",
        "bytes": "string",
        "byteArray": "string",
    }
    assert fields.field("timestamp").schema == Timestamp.SCHEMA


MAP_FIELD = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).optional().build()
MAP_STRUCT = SchemaBuilder.struct().field("id", MAP_FIELD).field("card", Schema.INT32_SCHEMA).build()


def test_a_null_field_of_an_uncastable_type_casts_to_null():
    """Oracle case: Kafka checks the type of a value, not of a field's schema; a null MAP field
    becomes a null optional INT64."""
    out = conf(CastValue, {"spec": "id:int64"}).apply(
        make_record(Struct(MAP_STRUCT).put("id", None).put("card", 2100), value_schema=MAP_STRUCT)
    )
    id_schema = out.value_schema.field("id").schema
    assert (id_schema.type, id_schema.optional) == (Type.INT64, True)
    assert (out.value.get("id"), out.value.get("card")) == (None, 2100)


def test_a_field_of_an_uncastable_type_that_holds_a_value_fails():
    with pytest.raises(DataError, match=r"Cast transformation does not support casting from MAP; supported types are "):
        conf(CastValue, {"spec": "id:int64"}).apply(
            make_record(Struct(MAP_STRUCT).put("id", {"x": 1}).put("card", 2100), value_schema=MAP_STRUCT)
        )


def test_the_default_of_an_uncastable_field_fails_when_the_schema_is_built():
    schema = (
        SchemaBuilder.struct()
        .field(
            "id",
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).optional().default_value({"x": 1}).build(),
        )
        .build()
    )
    with pytest.raises(DataError, match=r"does not support casting from MAP"):
        conf(CastValue, {"spec": "id:int64"}).apply(make_record(Struct(schema).put("id", None), value_schema=schema))


def test_fields_schemaless():
    spec = "int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,boolean:int8,string:int32"
    value = {
        "int8": 8,
        "int16": 16,
        "int32": 32,
        "int64": 64,
        "float32": 32.0,
        "float64": -64.0,
        "boolean": True,
        "string": "42",
    }
    out = conf(CastValue, {"spec": spec}).apply(make_record(value))
    assert out.value == {
        "int8": 8,
        "int16": 16,
        "int32": 32,
        "int64": True,
        "float32": 32.0,
        "float64": True,
        "boolean": 1,
        "string": 42,
    }


def test_derived_schema_is_cached():
    schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()
    xform = conf(CastValue, {"spec": "a:string"})
    first = xform.apply(make_record(Struct(schema).put("a", 1), value_schema=schema))
    second = xform.apply(make_record(Struct(schema).put("a", 2), value_schema=schema))
    assert first.value_schema is second.value_schema and xform.schema_cache.misses == 1


# --- Java's conversion rules, beyond Kafka's own tests --------------------------------------------

JAVA_RULES = [
    ("int8", 300, 44),
    ("int16", 70000, 4464),
    ("int32", 2**31, -(2**31)),
    ("int8", -129, 127),
    ("int32", 1e20, 2**31 - 1),
    ("int64", -1e30, -(2**63)),
    ("int8", 1e10, -1),
    ("int32", float("nan"), 0),
    ("int16", -1.9, -1),
    ("boolean", 0.5, False),
    ("boolean", -2, True),
    ("int32", True, 1),
    ("float32", 0.1, 0.10000000149011612),
    ("boolean", "TRUE", True),
    ("boolean", "yes", False),
    ("float64", "1e3", 1000.0),
    ("string", 1.0e10, "1.0E10"),
    ("string", 1.5e-5, "1.5E-5"),
    ("string", 123456789.0, "1.23456789E8"),
    ("string", False, "false"),
    ("string", b"\x01", "AQ=="),
]


@pytest.mark.parametrize("target, value, expected", JAVA_RULES)
def test_java_conversion_rules(target, value, expected):
    assert conf(CastValue, {"spec": target}).apply(make_record(value)).value == expected


@pytest.mark.parametrize("target, text", [("int8", "128"), ("int32", " 42"), ("int32", "4.2"), ("float64", "abc")])
def test_unparseable_strings(target, text):
    with pytest.raises(DataError, match=rf"Value \({text}\) was out of range for requested data type"):
        conf(CastValue, {"spec": target}).apply(make_record(text))


def test_float32_prints_with_float_precision():
    out = conf(CastValue, {"spec": "string"}).apply(
        make_record(0.10000000149011612, value_schema=Schema.FLOAT32_SCHEMA)
    )
    assert out.value == "0.1"


def test_nested_field_schemaless_v2():
    xform = conf(CastValue, {"spec": "a.b:int32", "field.syntax.version": "V2"})
    assert xform.apply(make_record({"a": {"b": "7", "c": 1}})).value == {"a": {"b": 7, "c": 1}}
