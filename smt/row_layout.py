"""The Kafka row layout, declared once: Spark's Kafka source schema.

A record crosses Spark as one row of these fields, in this order, exactly as
Spark's Kafka source reads them and its sink writes them, so the Kafka
connector plugs in unchanged.  Each field has its Spark SQL type, its Arrow
type (what ``mapInArrow`` hands over) and the :class:`smt.record.Record`
attribute that holds it in Python.  Every other spelling of the layout (the
Spark DDL, the Arrow schema, the row-name/attribute maps) is derived here;
the Avro file format's ``kafka_record.avsc`` is checked against it by a test.
"""

from __future__ import annotations

import dataclasses
import types

import pyarrow as pa

__all__ = [
    "RowField",
    "KAFKA_ROW",
    "KAFKA_ROW_FIELDS",
    "KAFKA_ROW_TYPES",
    "KAFKA_ROW_SCHEMA_DDL",
    "KAFKA_ARROW_SCHEMA",
    "ATTRIBUTE_OF_FIELD",
    "FIELD_OF_ATTRIBUTE",
]


@dataclasses.dataclass(frozen=True)
class RowField:
    """One field of the Kafka row: its row name, Spark SQL type, Arrow type and Record attribute."""

    name: str
    spark_type: str
    arrow_type: pa.DataType
    attribute: str


_HEADER_ARROW_TYPE = pa.list_(pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())]))

#: The layout, in Spark's order.
KAFKA_ROW: tuple[RowField, ...] = (
    RowField("key", "binary", pa.binary(), "key"),
    RowField("value", "binary", pa.binary(), "value"),
    RowField("topic", "string", pa.string(), "topic"),
    RowField("partition", "int", pa.int32(), "partition"),
    RowField("offset", "long", pa.int64(), "offset"),
    RowField("timestamp", "timestamp", pa.timestamp("us"), "timestamp"),
    RowField("timestampType", "int", pa.int32(), "timestamp_type"),
    RowField("headers", "array<struct<key:string,value:binary>>", _HEADER_ARROW_TYPE, "headers"),
)

#: The row's field names, in order.
KAFKA_ROW_FIELDS: tuple[str, ...] = tuple(field.name for field in KAFKA_ROW)

#: Spark SQL type of each field.
KAFKA_ROW_TYPES: types.MappingProxyType = types.MappingProxyType({field.name: field.spark_type for field in KAFKA_ROW})

#: Spark's Kafka source schema as DDL, the row layout of a record everywhere in Spark.
KAFKA_ROW_SCHEMA_DDL = ", ".join(f"{field.name} {field.spark_type}" for field in KAFKA_ROW)

#: The layout as the Arrow schema ``mapInArrow`` reads and writes.
KAFKA_ARROW_SCHEMA = pa.schema([pa.field(field.name, field.arrow_type) for field in KAFKA_ROW])

#: Row field name -> Record attribute (``timestampType`` -> ``timestamp_type``).
ATTRIBUTE_OF_FIELD: types.MappingProxyType = types.MappingProxyType(
    {field.name: field.attribute for field in KAFKA_ROW}
)

#: Record attribute -> row field name.
FIELD_OF_ATTRIBUTE: types.MappingProxyType = types.MappingProxyType(
    {field.attribute: field.name for field in KAFKA_ROW}
)
