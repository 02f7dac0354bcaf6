"""Round-trip properties: what a converter writes, it reads back unchanged."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

import converters
from smt.data import Schema, SchemaBuilder, Struct
from tests.converters.strategies import JSON_VALUES, schema_and_value, schemas, values

SETTINGS = settings(max_examples=150, deadline=None)


@SETTINGS
@given(schema_and_value(), st.sampled_from(["BASE64", "NUMERIC"]))
def test_json_with_schemas_round_trips(schema_value, decimal_format):
    schema, value = schema_value
    converter = converters.load("json", {"decimal.format": decimal_format})
    data = converter.from_connect_data("t", schema, value)
    assert converter.to_connect_data("t", data) == (schema, value)


@SETTINGS
@given(st.lists(schema_and_value(max_depth=1), min_size=1, max_size=5))
def test_json_batch_round_trips(rows):
    converter = converters.load("json")
    topics = ["t"] * len(rows)
    encoded = converter.from_connect_batch(topics, [s for s, _ in rows], [v for _, v in rows])
    schemas_back, values_back = converter.to_connect_batch(topics, encoded)
    assert values_back == [v for _, v in rows]
    assert schemas_back == [s for s, _ in rows]


@SETTINGS
@given(JSON_VALUES)
def test_schemaless_json_round_trips(value):
    converter = converters.load("json", {"schemas.enable": "false"})
    data = converter.from_connect_data("t", None, value)
    if value is None:
        assert data is None
        return
    assert json.loads(data) == value
    assert converter.to_connect_data("t", data) == (None, value)
    assert converter.to_connect_batch(["t"], converter.from_connect_batch(["t"], None, [value])) == (None, [value])


def _avro_struct_schemas():
    return st.lists(schemas(max_depth=1, string_keys_only=True), min_size=1, max_size=5).map(
        lambda fields: _struct(fields)
    )


def _struct(field_schemas):
    builder = SchemaBuilder.struct().name("test.Row")
    for index, schema in enumerate(field_schemas):
        builder.field(f"f{index}", schema)
    return builder.build()


@SETTINGS
@given(_avro_struct_schemas().flatmap(lambda s: st.tuples(st.just(s), values(s, allow_null=False))))
def test_avro_round_trips_through_the_derived_schema(schema_value):
    from converters.avro._mapping import to_avro_schema

    schema, value = schema_value
    converter = converters.load("avro", {"avro.schema": json.dumps(to_avro_schema(schema))})
    data = converter.from_connect_data("t", schema, value)
    read_schema, read_value = converter.to_connect_data("t", data)
    assert isinstance(read_value, Struct)
    assert read_value.to_dict() == value.to_dict()
    assert [f.name for f in read_schema.fields] == [f.name for f in schema.fields]


WORDS = st.text(alphabet="abcdefghij XYZ", max_size=15).filter(lambda t: t.strip() not in ("true", "false", "null"))


@SETTINGS
@given(
    st.one_of(
        st.tuples(st.just(Schema.STRING_SCHEMA), WORDS),
        st.tuples(st.just(Schema.INT64_SCHEMA), values(Schema.INT64_SCHEMA)),
        st.tuples(st.just(Schema.BOOLEAN_SCHEMA), st.booleans()),
        st.tuples(st.just(SchemaBuilder.array(Schema.INT64_SCHEMA).build()), st.lists(values(Schema.INT64_SCHEMA))),
    )
)
def test_header_string_form_parses_back_to_the_same_value(schema_value):
    schema, value = schema_value
    converter = converters.load("simple")
    data = converter.from_connect_header("t", "h", schema, value)
    _, read = converter.to_connect_header("t", "h", data)
    assert read == value
