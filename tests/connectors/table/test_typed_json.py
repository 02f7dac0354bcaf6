"""Typed JSON lines, the table sink's own encoding of values with a schema: golden bytes, and what is refused."""

import datetime as dt
import decimal
import json

import pyarrow as pa
import pytest
from pyspark.sql import types as T

from connectors.table.ddl import parse_columns
from connectors.table.typed_json import TypedJsonEncoder, TypeLines, parse_type, payloads, type_text, unwritable
from connectors.table.types import spark_type
from smt.data import Date, Decimal, SchemaBuilder, Struct, Time, Timestamp

UTC = dt.timezone.utc


def _struct(**fields):
    builder = SchemaBuilder.struct()
    for name, schema in fields.items():
        builder = builder.field(name, schema)
    return builder.build()


_STRING = SchemaBuilder.string().optional().build()
_INT = SchemaBuilder.int32().optional().build()

GOLDEN = [
    # (field schema, value, the payload's JSON for it)
    (SchemaBuilder.int64().build(), 7, "7"),
    (SchemaBuilder.float64().optional().build(), float("nan"), "NaN"),
    (SchemaBuilder.boolean().build(), True, "true"),
    (_STRING, "é\n", '"\\u00e9\\n"'),
    (_STRING, None, "null"),
    (SchemaBuilder.bytes_().build(), b"\x00\xff", '"AP8="'),
    (Decimal.schema(2), decimal.Decimal("12.50"), '"12.50"'),
    (Decimal.schema(0), decimal.Decimal("1E+2"), '"100"'),
    (Timestamp.SCHEMA, dt.datetime(2024, 5, 1, 12, 0, 0, 1000, tzinfo=UTC), '"2024-05-01T12:00:00.001000+00:00"'),
    (Timestamp.SCHEMA, dt.datetime(2024, 5, 1, 12, 0), '"2024-05-01T12:00:00+00:00"'),  # naive: UTC
    (Date.SCHEMA, dt.date(2022, 1, 9), '"2022-01-09"'),
    (Time.SCHEMA, dt.time(0, 0, 1, 500000), "1500"),
    (
        SchemaBuilder.array(Decimal.builder(1).optional().build()).build(),
        [decimal.Decimal("0.5"), None],
        '["0.5",null]',
    ),
    (SchemaBuilder.map(SchemaBuilder.int32().build(), _STRING).build(), {1: "a"}, '{"1":"a"}'),
    (SchemaBuilder.map(SchemaBuilder.boolean().build(), _INT).build(), {False: 1}, '{"false":1}'),
]


@pytest.mark.parametrize(("schema", "value", "payload"), GOLDEN, ids=lambda v: repr(v)[:30])
def test_a_field_is_written_as_spark_casts_it_back(schema, value, payload):
    record_schema = _struct(f=schema)
    line = TypedJsonEncoder().encode([record_schema], [Struct(record_schema).put("f", value)])[0]
    type_line, _, payload_line = line.partition(b"\n")
    assert json.loads(type_line) == json.loads(T.StructType([T.StructField("f", spark_type(schema))]).json())
    assert payload_line.decode() == '{"f":' + payload + "}"


def test_nested_structs_and_field_defaults():
    inner = _struct(city=_STRING)
    schema = _struct(address=inner, n=SchemaBuilder.int32().optional().default_value(3).build())
    value = Struct(schema).put("address", Struct(inner).put("city", "Delft"))
    line = TypedJsonEncoder().encode([schema], [value])[0]
    assert line.partition(b"\n")[2] == b'{"address":{"city":"Delft"},"n":3}'


def test_a_tombstone_stays_null_and_each_type_line_and_payload_reads_back():
    one, two = _struct(a=_STRING), _struct(a=_STRING, b=_INT)
    values = [Struct(one).put("a", "x\ny"), None, Struct(two).put("a", "z").put("b", 2), Struct(one).put("a", None)]
    lines = TypedJsonEncoder().encode([one, None, two, one], values)
    assert lines[1] is None
    seen: dict = {}
    TypeLines().observe(pa.RecordBatch.from_arrays([pa.array(lines, pa.binary())], ["value"]), seen)
    assert sorted(seen) == sorted({type_text(one), type_text(two)})
    assert payloads(lines) == [{"a": "x\ny"}, None, {"a": "z", "b": 2}, {"a": None}]


def test_fields_json_cannot_hold_are_read_as_strings_then_cast():
    columns = parse_columns("at TIMESTAMP, d DATE, n DECIMAL(9,2), m MAP<INT, ARRAY<DATE>>, b BINARY, i INT")
    assert parse_type(columns) == parse_columns(
        "at STRING, d STRING, n STRING, m MAP<STRING, ARRAY<STRING>>, b BINARY, i INT"
    )


def test_a_map_with_bytes_keys_is_named_as_unwritable():
    keyed = SchemaBuilder.map(SchemaBuilder.bytes_().build(), _STRING).build()
    assert unwritable(_struct(a=_STRING, tags=SchemaBuilder.array(keyed).build())) == (
        "field 'tags[]': a map with bytes keys cannot be a column"
    )
    assert unwritable(_struct(a=SchemaBuilder.map(Decimal.schema(2), _STRING).build())) is None
