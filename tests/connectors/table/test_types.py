"""The type mapping of the table sink: Connect schemas to Spark column types, and uniting them."""

import pytest
from pyspark.sql import types as T

from connectors.table.types import TypeConflict, merged_type, spark_type
from smt.data import Date, Decimal, SchemaBuilder, Time, Timestamp

MAPPING = [
    (SchemaBuilder.int8().build(), T.ByteType()),
    (SchemaBuilder.int16().build(), T.ShortType()),
    (SchemaBuilder.int32().build(), T.IntegerType()),
    (SchemaBuilder.int64().build(), T.LongType()),
    (SchemaBuilder.float32().build(), T.FloatType()),
    (SchemaBuilder.float64().build(), T.DoubleType()),
    (SchemaBuilder.boolean().build(), T.BooleanType()),
    (SchemaBuilder.string().build(), T.StringType()),
    (SchemaBuilder.bytes_().build(), T.BinaryType()),
    (Decimal.schema(2), T.DecimalType(38, 2)),
    (Decimal.builder(3).parameter("connect.decimal.precision", "9").build(), T.DecimalType(9, 3)),
    (Date.SCHEMA, T.DateType()),
    (Time.SCHEMA, T.IntegerType()),
    (Timestamp.SCHEMA, T.TimestampType()),
    (SchemaBuilder.array(SchemaBuilder.string().build()).build(), T.ArrayType(T.StringType(), True)),
    (
        SchemaBuilder.map(SchemaBuilder.string().build(), SchemaBuilder.int64().build()).build(),
        T.MapType(T.StringType(), T.LongType(), True),
    ),
    (
        SchemaBuilder.struct()
        .field("id", SchemaBuilder.int64().build())
        .field("tags", SchemaBuilder.array(SchemaBuilder.string().optional().build()).optional().build())
        .build(),
        T.StructType([T.StructField("id", T.LongType()), T.StructField("tags", T.ArrayType(T.StringType()))]),
    ),
]


@pytest.mark.parametrize(("schema", "expected"), MAPPING, ids=lambda v: repr(v)[:40])
def test_connect_schema_maps_to_spark_type(schema, expected):
    assert spark_type(schema) == expected


def struct(**fields):
    return T.StructType([T.StructField(name, data_type) for name, data_type in fields.items()])


def test_merged_type_adds_new_fields_after_the_old_ones():
    old = struct(id=T.LongType(), nested=struct(a=T.StringType()))
    new = struct(email=T.StringType(), id=T.LongType(), nested=struct(b=T.IntegerType()))
    assert merged_type(old, new) == struct(
        id=T.LongType(), nested=struct(a=T.StringType(), b=T.IntegerType()), email=T.StringType()
    )


def test_merged_type_refuses_a_changed_type_naming_the_field():
    old = struct(id=T.LongType(), nested=struct(amount=T.DecimalType(10, 2)))
    new = struct(id=T.LongType(), nested=struct(amount=T.DecimalType(10, 3)))
    with pytest.raises(
        TypeConflict, match=r"field 'nested.amount' is decimal\(10,2\) in one schema and decimal\(10,3\)"
    ):
        merged_type(old, new)
    with pytest.raises(TypeConflict, match="field 'id' is bigint in one schema and int in another"):
        merged_type(old, struct(id=T.IntegerType()))
