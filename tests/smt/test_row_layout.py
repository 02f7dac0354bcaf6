"""The Kafka row layout, declared once: every spelling of it agrees with Spark and with Record."""

import dataclasses

import pyarrow as pa

from smt.batch import RecordBatch
from smt.record import Record
from smt.row_layout import (
    ATTRIBUTE_OF_FIELD,
    FIELD_OF_ATTRIBUTE,
    KAFKA_ARROW_SCHEMA,
    KAFKA_ROW_FIELDS,
    KAFKA_ROW_SCHEMA_DDL,
)


def test_spark_reads_the_ddl_as_the_arrow_schema_mapInArrow_uses(spark):
    from pyspark.sql.pandas.types import to_arrow_schema

    struct = spark.createDataFrame([], KAFKA_ROW_SCHEMA_DDL).schema
    assert tuple(struct.names) == KAFKA_ROW_FIELDS
    spark_arrow = to_arrow_schema(struct)  # PySpark 4.1 takes timestamp_utc=, 4.2 on timezone=: neither given
    # Spark hands timestamps over in the session's zone; the layout's type is the zone-less one.
    spark_arrow = spark_arrow.set(5, spark_arrow.field(5).with_type(pa.timestamp("us")))
    assert spark_arrow.remove_metadata().equals(KAFKA_ARROW_SCHEMA)


def test_every_row_field_is_a_record_attribute_and_back():
    attributes = {field.name for field in dataclasses.fields(Record)}
    assert set(ATTRIBUTE_OF_FIELD.values()) <= attributes
    assert {FIELD_OF_ATTRIBUTE[a] for a in ATTRIBUTE_OF_FIELD.values()} == set(KAFKA_ROW_FIELDS)
    assert ATTRIBUTE_OF_FIELD["timestampType"] == "timestamp_type"


def test_a_batch_round_trips_through_the_layout():
    record = Record(
        topic="t",
        partition=2,
        offset=9,
        timestamp=1_700_000_000_123,
        timestamp_type=1,
        key=b"k",
        value=b"v",
        headers=(("h", b"1"), ("h", None)),
    )
    arrow = RecordBatch.from_records([record]).to_arrow()
    assert arrow.schema.equals(KAFKA_ARROW_SCHEMA)
    assert RecordBatch.from_arrow(arrow).records() == [record]
