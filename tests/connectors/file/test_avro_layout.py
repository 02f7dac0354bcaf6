"""The Avro file format's schema (``kafka_record.avsc``) holds the Kafka row layout, field for field."""

from connectors.file._avro import kafka_record_schema
from smt.row_layout import KAFKA_ROW_TYPES

#: Spark SQL type -> the Avro type the file format writes it as (nullable where Spark's column is).
_AVRO_OF_SPARK = {
    "binary": ["null", "bytes"],
    "string": ["null", "string"],
    "int": ["null", "int"],
    "long": ["null", "long"],
    "timestamp": ["null", {"type": "long", "logicalType": "timestamp-millis"}],
    "array<struct<key:string,value:binary>>": {
        "type": "array",
        "items": {
            "type": "record",
            "name": "Header",
            "fields": [
                {"name": "key", "type": "string"},
                {"name": "value", "type": ["null", "bytes"], "default": None},
            ],
        },
    },
}


def test_the_avro_schema_has_every_row_field_with_its_type():
    fields = {field["name"]: field["type"] for field in kafka_record_schema()["fields"]}
    assert set(fields) == set(KAFKA_ROW_TYPES)
    for name, spark_type in KAFKA_ROW_TYPES.items():
        expected = _AVRO_OF_SPARK[spark_type]
        if name == "timestampType":
            expected = "int"  # never null in a file: a record without one is written with 0
        assert fields[name] == expected, name
