"""``sink.value.schema``: Spark DDL column lists parsed before Spark starts."""

import pytest
from pyspark.sql import types as T

from connectors.table.ddl import DdlError, parse_columns


def test_parses_every_type_the_sink_writes():
    columns = parse_columns(
        "id BIGINT NOT NULL, `order id` string, small tinyint, s smallint, i INT, f float, d double, ok boolean, "
        "raw binary, day date, at timestamp, amount DECIMAL(10, 2), whole decimal, tags ARRAY<STRING>, "
        "counts MAP<STRING, BIGINT>, address STRUCT<city: STRING, zip STRING NOT NULL>"
    )
    assert columns == T.StructType(
        [
            T.StructField("id", T.LongType(), False),
            T.StructField("order id", T.StringType()),
            T.StructField("small", T.ByteType()),
            T.StructField("s", T.ShortType()),
            T.StructField("i", T.IntegerType()),
            T.StructField("f", T.FloatType()),
            T.StructField("d", T.DoubleType()),
            T.StructField("ok", T.BooleanType()),
            T.StructField("raw", T.BinaryType()),
            T.StructField("day", T.DateType()),
            T.StructField("at", T.TimestampType()),
            T.StructField("amount", T.DecimalType(10, 2)),
            T.StructField("whole", T.DecimalType(10, 0)),
            T.StructField("tags", T.ArrayType(T.StringType())),
            T.StructField("counts", T.MapType(T.StringType(), T.LongType())),
            T.StructField(
                "address",
                T.StructType([T.StructField("city", T.StringType()), T.StructField("zip", T.StringType(), False)]),
            ),
        ]
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id bigint, amount money", "unknown type 'money'"),
        ("id bigint,", "'id bigint,' ends too early"),
        ("id bigint id2 int", "unexpected 'id2' at character 11"),
        ("tags array<string", "expected '>' at the end of 'tags array<string'"),
        ("amount decimal(10 2)", "expected '\\)' at character 19, found '2'"),
        ("id int, id bigint", "column 'id' is declared twice"),
        ("id int; drop", "unexpected ';"),
        ("", "no columns declared|ends too early"),
    ],
)
def test_refuses_what_it_cannot_read(text, message):
    with pytest.raises(DdlError, match=message):
        parse_columns(text)
