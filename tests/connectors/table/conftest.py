"""Records for the table sink's tests: Kafka-layout input folders and pipelines into tables."""

from __future__ import annotations

import base64
import json

import pytest

from connectors.file.formats import FORMATS
from smt.record import KAFKA_ROW_SCHEMA_DDL

ORDER_SCHEMA = {
    "type": "struct",
    "optional": False,
    "fields": [
        {"field": "order_id", "type": "int64", "optional": False},
        {
            "field": "amount",
            "type": "bytes",
            "optional": True,
            "name": "org.apache.kafka.connect.data.Decimal",
            "parameters": {"scale": "2"},
        },
        {"field": "country", "type": "string", "optional": True},
        {"field": "placed", "type": "int64", "optional": True, "name": "org.apache.kafka.connect.data.Timestamp"},
        {"field": "day", "type": "int32", "optional": True, "name": "org.apache.kafka.connect.data.Date"},
        {"field": "tags", "type": "array", "items": {"type": "string"}, "optional": True},
        {"field": "counts", "type": "map", "keys": {"type": "string"}, "values": {"type": "int32"}, "optional": True},
        {
            "field": "address",
            "type": "struct",
            "optional": True,
            "fields": [{"field": "city", "type": "string", "optional": True}],
        },
    ],
}


def envelope_order(order_id: int, cents: int, country: str = "NL", schema: dict = ORDER_SCHEMA, **extra) -> bytes:
    """One order as JsonConverter writes it with schemas.enable=true."""
    payload = {
        "order_id": order_id,
        "amount": base64.b64encode(cents.to_bytes(4, "big", signed=True)).decode(),
        "country": country,
        "placed": 1_700_000_000_000 + order_id,
        "day": 19_000 + order_id,
        "tags": ["new"],
        "counts": {"items": order_id},
        "address": {"city": "Delft"},
        **extra,
    }
    return json.dumps({"schema": schema, "payload": payload}).encode()


def kafka_rows(values: list[bytes | None], topic: str | list[str] = "orders", keys=None) -> list:
    """Kafka-layout rows of ``values``; ``topic`` is every record's, or one per record."""
    keys = keys or [f"k{i}".encode() for i in range(len(values))]
    topics = [topic] * len(values) if isinstance(topic, str) else topic
    return [(keys[i], v, topics[i], 0, i, None, 0, []) for i, v in enumerate(values)]


@pytest.fixture
def kafka_input(spark, tmp_path):
    """Writes Kafka-layout records into a Parquet folder a file source reads; returns its path."""
    counter = iter(range(1000))

    def write(values: list[bytes | None], topic: str | list[str] = "orders", keys=None) -> str:
        path = str(tmp_path / f"in-{next(counter)}")
        df = spark.createDataFrame(kafka_rows(values, topic, keys), KAFKA_ROW_SCHEMA_DDL)
        FORMATS["parquet"].write(df.coalesce(1), path, "errorifexists")
        return path

    return write
