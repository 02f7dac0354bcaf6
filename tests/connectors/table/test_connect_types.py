"""Spark columns as Connect schemas and values: the table source's type mapping (no Spark session)."""

from __future__ import annotations

import datetime as dt
import decimal
import pickle

import pyarrow as pa
import pytest
from pyspark.sql import types as T

from connectors.table.connect_types import ConnectValues, UnsupportedColumn, connect_schema
from connectors.table.types import spark_type
from smt.data import Date, Decimal, SchemaBuilder, Struct, Timestamp, Type

UTC = dt.timezone.utc

GOLDEN = [
    (T.ByteType(), Type.INT8, None),
    (T.ShortType(), Type.INT16, None),
    (T.IntegerType(), Type.INT32, None),
    (T.LongType(), Type.INT64, None),
    (T.FloatType(), Type.FLOAT32, None),
    (T.DoubleType(), Type.FLOAT64, None),
    (T.BooleanType(), Type.BOOLEAN, None),
    (T.StringType(), Type.STRING, None),
    (T.VarcharType(10), Type.STRING, None),
    (T.BinaryType(), Type.BYTES, None),
    (T.DecimalType(10, 2), Type.BYTES, Decimal.LOGICAL_NAME),
    (T.DateType(), Type.INT32, Date.LOGICAL_NAME),
    (T.TimestampType(), Type.INT64, Timestamp.LOGICAL_NAME),
    (T.TimestampNTZType(), Type.INT64, Timestamp.LOGICAL_NAME),
]


@pytest.mark.parametrize(("spark", "connect", "name"), GOLDEN, ids=[g[0].simpleString() for g in GOLDEN])
def test_each_spark_type_has_its_connect_schema(spark, connect, name):
    schema = connect_schema(spark)
    assert (schema.type, schema.name, schema.optional) == (connect, name, True)


def test_decimal_keeps_scale_and_precision_and_nullability_makes_optional():
    schema = connect_schema(
        T.StructType(
            [
                T.StructField("id", T.LongType(), False),
                T.StructField("amount", T.DecimalType(10, 2), True),
                T.StructField("tags", T.ArrayType(T.StringType(), False), True),
                T.StructField("counts", T.MapType(T.StringType(), T.IntegerType(), True), True),
            ]
        ),
        nullable=False,
    )
    assert [(f.name, f.schema.optional) for f in schema.fields] == [
        ("id", False),
        ("amount", True),
        ("tags", True),
        ("counts", True),
    ]
    amount = schema.field("amount").schema
    assert dict(amount.parameters) == {"scale": "2", "connect.decimal.precision": "10"}
    assert schema.field("tags").schema.value_schema.optional is False
    assert schema.field("counts").schema.key_schema.optional is False


def test_the_sinks_mapping_inverted_gives_the_spark_type_back():
    columns = T.StructType(
        [
            T.StructField("amount", T.DecimalType(12, 3)),
            T.StructField("at", T.TimestampType()),
            T.StructField("nested", T.StructType([T.StructField("xs", T.ArrayType(T.DateType()))])),
        ]
    )
    assert spark_type(connect_schema(columns)) == columns


def test_a_type_without_a_connect_schema_is_named_by_its_column():
    columns = T.StructType([T.StructField("a", T.StructType([T.StructField("wait", T.DayTimeIntervalType())]))])
    with pytest.raises(UnsupportedColumn, match=r"column 'a.wait' is interval day to second, which has no Kafka"):
        connect_schema(columns)


def test_a_batch_of_rows_becomes_structs():
    columns = T.StructType(
        [
            T.StructField("id", T.LongType()),
            T.StructField("amount", T.DecimalType(10, 2)),
            T.StructField("day", T.DateType()),
            T.StructField("at", T.TimestampType()),
            T.StructField("counts", T.MapType(T.StringType(), T.IntegerType())),
            T.StructField("address", T.StructType([T.StructField("city", T.StringType())])),
            T.StructField("lines", T.ArrayType(T.StructType([T.StructField("sku", T.StringType())]))),
        ]
    )
    batch = pa.RecordBatch.from_pydict(
        {
            "id": pa.array([1, None], pa.int64()),
            "amount": pa.array([decimal.Decimal("12.50"), None], pa.decimal128(10, 2)),
            "day": pa.array([dt.date(2024, 5, 1), None], pa.date32()),
            "at": pa.array([dt.datetime(2024, 5, 1, 12, tzinfo=UTC), None], pa.timestamp("us", tz="UTC")),
            "counts": pa.array([[("x", 1)], None], pa.map_(pa.string(), pa.int32())),
            "address": pa.array([{"city": "Delft"}, None], pa.struct([("city", pa.string())])),
            "lines": pa.array([[{"sku": "a"}], []], pa.list_(pa.struct([("sku", pa.string())]))),
        }
    )
    values = pickle.loads(pickle.dumps(ConnectValues(columns))).values(batch)
    first = values[0]
    assert isinstance(first, Struct)
    assert first.to_dict() == {
        "id": 1,
        "amount": decimal.Decimal("12.50"),
        "day": dt.date(2024, 5, 1),
        "at": dt.datetime(2024, 5, 1, 12, tzinfo=UTC),
        "counts": {"x": 1},
        "address": {"city": "Delft"},
        "lines": [{"sku": "a"}],
    }
    assert first.get("address").schema == first.schema.field("address").schema
    assert values[1].to_dict() == dict.fromkeys(columns.names) | {"lines": []}
    first.validate()
    empty = ConnectValues(T.StructType([])).values(pa.RecordBatch.from_pydict({"x": [1, 2]}))
    assert [v.schema for v in empty] == [SchemaBuilder.struct().build()] * 2
