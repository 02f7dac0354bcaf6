"""FLOAT32 values print as Java prints a float (#12): shortest digits of the 32-bit value."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

import converters
from smt.batch import RecordBatch
from smt.chain import TransformChain
from smt.data import Float32, Schema, SchemaBuilder, Struct, convert_to_string, format_float
from smt.record import Record

# value -> Float.toString: the shortest digits, as Java 19+ prints them (Java 17 sometimes prints one
# digit more, 1.23456792E8 for 123456789f: JDK-4511638; both read back to the same float)
JAVA_FLOAT_STRINGS = {
    10.03: "10.03",
    0.1: "0.1",
    1.0: "1.0",
    -2.5: "-2.5",
    1e10: "1.0E10",
    1.5e-5: "1.5E-5",
    123456789.0: "1.2345679E8",
    3.4028234663852886e38: "3.4028235E38",
    1e-45: "1.4E-45",
    0.001: "0.001",
    1e7: "1.0E7",
    9999999.0: "9999999.0",
    -0.0: "-0.0",
    float("nan"): "NaN",
    float("inf"): "Infinity",
}


@pytest.mark.parametrize("value, text", JAVA_FLOAT_STRINGS.items(), ids=JAVA_FLOAT_STRINGS.values())
def test_format_float_is_javas_float_to_string(value, text):
    assert format_float(value) == text


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_the_printed_digits_read_back_to_the_same_float32(value):
    assert struct.pack("<f", float(format_float(value))) == struct.pack("<f", value)


def _cast_to_float32(value, schema=None):
    chain = TransformChain.from_properties(
        {"transforms": "c", "transforms.c.type": "Cast$Value", "transforms.c.spec": "float32"}
    )
    return chain.apply(Record(topic="t", value=value, value_schema=schema))[0]


def test_cast_to_float32_then_json_writes_what_kafka_writes():
    json = converters.load("json", {"schemas.enable": "false"})
    record = _cast_to_float32("10.03")
    assert json.from_connect_data("t", record.value_schema, record.value) == b"10.03"
    assert json.from_connect_batch(["t"], None, [record.value]) == [b"10.03"]


def test_float32_fields_with_a_schema_write_as_floats_in_json():
    json = converters.load("json", {})
    schema = SchemaBuilder.struct().field("f", Schema.FLOAT32_SCHEMA).field("d", Schema.FLOAT64_SCHEMA).build()
    data = json.from_connect_data("t", schema, Struct(schema).put("f", 10.029999732971191).put("d", 0.5))
    assert b'"payload":{"f":10.03,"d":0.5}' in data
    _, read = json.to_connect_data("t", data)
    assert isinstance(read.get("f"), Float32) and repr(read.get("f")) == "10.03"


def test_values_convert_to_string_prints_float32_as_a_float():
    schema = SchemaBuilder.array(Schema.FLOAT32_SCHEMA).build()
    assert convert_to_string(Schema.FLOAT32_SCHEMA, 10.029999732971191) == "10.03"
    assert convert_to_string(schema, [10.029999732971191, 1e10]) == "[10.03,1.0E10]"
    assert convert_to_string(None, Float32(10.03)) == "10.03"
    assert convert_to_string(None, 10.029999732971191) == "10.029999732971191"


def test_string_and_header_converters_print_float32_as_kafka_does():
    record = _cast_to_float32("10.03", Schema.STRING_SCHEMA)
    assert converters.load("string").from_connect_data("t", record.value_schema, record.value) == b"10.03"
    simple = converters.load("simple")
    assert simple.from_connect_header("t", "h", None, record.value) == b"10.03"


def test_float32_survives_pickling_as_float32():
    import pickle

    value = pickle.loads(pickle.dumps(Float32(10.03)))
    assert isinstance(value, Float32) and str(value) == "10.03"


def test_batch_path_of_cast_gives_float32_too():
    chain = TransformChain.from_properties(
        {"transforms": "c", "transforms.c.type": "Cast$Value", "transforms.c.spec": "x:float32"}
    )
    out = chain.apply_batch(RecordBatch.from_records([Record(topic="t", value={"x": "10.03"})]))
    assert str(out.records()[0].value["x"]) == "10.03"
