"""Which record schemas fit a table's columns: the schema-change rules, one message per refusal."""

import pytest
from pyspark.sql import types as T

from connectors.table.fit import SchemaFit, TableFits
from smt.data import SchemaBuilder, Timestamp

TABLE = T.StructType(
    [
        T.StructField("id", T.LongType(), False),
        T.StructField("placed", T.TimestampType()),
        T.StructField("address", T.StructType([T.StructField("city", T.StringType())])),
    ]
)
KEY = "sink.schema.evolution"


def _value(*fields, address=None):
    builder = SchemaBuilder.struct()
    for name, schema in fields:
        builder = builder.field(name, schema)
    if address is not None:
        builder = builder.field("address", address)
    return builder.build()


_ID = ("id", SchemaBuilder.int64().build())
_PLACED = ("placed", Timestamp.SCHEMA)
_CITY = SchemaBuilder.struct().field("city", SchemaBuilder.string().optional().build()).optional().build()
_CITY_ZIP = (
    SchemaBuilder.struct()
    .field("city", SchemaBuilder.string().optional().build())
    .field("zip", SchemaBuilder.string().optional().build())
    .optional()
    .build()
)

CASES = [
    (_value(_ID, _PLACED, address=_CITY), False, None),
    (_value(_ID), False, None),  # a nullable column the record lacks stays null
    (
        _value(_ID, ("placed", SchemaBuilder.int32().build())),
        True,
        "field 'placed' is timestamp in one schema and int in another; the table's type stays",
    ),
    (
        _value(_ID, ("email", SchemaBuilder.string().build())),
        False,
        f"field 'email' is not a column of the table; set {KEY}=add_columns to add it",
    ),
    (_value(_ID, ("email", SchemaBuilder.string().build())), True, None),
    (
        _value(_ID, address=_CITY_ZIP),
        False,
        f"a nested field is not a column of the table; set {KEY}=add_columns to add it",
    ),
    (_value(_ID, address=_CITY_ZIP), True, None),
    (_value(_PLACED), True, "field 'id' is a NOT NULL column of the table, and the record's schema lacks it"),
    (
        SchemaBuilder.string().build(),
        True,
        "the value's schema is string, not a struct: only a struct's fields can be columns",
    ),
]


@pytest.mark.parametrize(("schema", "may_add", "problem"), CASES)
def test_a_record_schema_fits_the_table_or_is_refused_naming_the_field(schema, may_add, problem):
    assert SchemaFit(TABLE, KEY, may_add).problem(schema) == problem


def test_each_schema_is_judged_once_and_the_judgements_stay_on_the_executor():
    import pickle

    fit = SchemaFit(TABLE, KEY, may_add=False)
    schema = _value(_ID, ("email", SchemaBuilder.string().build()))
    assert fit.problem(schema) is fit.problem(schema)
    assert list(fit._problems) == [schema]
    shipped = pickle.loads(pickle.dumps(fit))
    assert shipped._problems == {} and shipped.columns == TABLE and not shipped.may_add


def test_a_database_table_keeps_a_byte_field_in_a_smallint_column():
    table = T.StructType([T.StructField("level", T.ShortType())])
    byte_field = _value(("level", SchemaBuilder.int8().build()))
    assert SchemaFit(table, KEY, may_add=False, widens_bytes=True).problem(byte_field) is None
    assert SchemaFit(table, KEY, may_add=False).problem(byte_field) == (
        "field 'level' is smallint in one schema and tinyint in another; the table's type stays"
    )


def test_each_table_is_judged_by_the_columns_known_as_its_batch_started():
    import pickle

    orders, refunds = "sink.path=/t/orders", "sink.path=/t/refunds"
    fits = TableFits(KEY, may_add=False)
    fits.learn(orders, TABLE)
    fits.start()
    fits.learn(refunds, T.StructType([T.StructField("refund_id", T.StringType())]))  # after the batch started
    # Outside a Spark task (no local property): what travelled with the sink.
    shipped = pickle.loads(pickle.dumps(fits)).batch()
    narrowed = _value(_ID, ("placed", SchemaBuilder.int32().build()))
    assert shipped(orders).problem(narrowed) == (
        "field 'placed' is timestamp in one schema and int in another; the table's type stays"
    )
    assert shipped(orders) is shipped(orders)
    assert shipped(refunds).columns is None  # unknown to this batch: checked as it is written
    assert fits.shipped(orders) == TABLE and fits.shipped(refunds) is None
    fits.learn(orders, None)  # the table is gone
    fits.start()
    assert fits.shipped(orders) is None and fits.shipped(refunds) is not None
