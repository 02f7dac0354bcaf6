"""Bytes pass through unchanged; null stays null."""

from __future__ import annotations

from typing import Any

from smt.converter import Converter, HeaderConverter
from smt.errors import DataError


class ByteArrayConverter(Converter, HeaderConverter):
    """Passes ``bytes`` through as they are (Kafka Connect's ByteArrayConverter)."""

    name = "bytearray"
    aliases = ("org.apache.kafka.connect.converters.ByteArrayConverter", "ByteArrayConverter")
    passthrough = True
    null_is_null = True  # null bytes <-> None, as in Kafka

    def from_connect_data(self, topic: str, schema: Any, value: Any) -> bytes | None:
        if schema is not None and schema.type.value != "bytes":
            raise DataError(f"Invalid schema type for ByteArrayConverter: {schema.type}")
        if value is None:
            return None
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
        raise DataError(f"ByteArrayConverter is not compatible with objects of type {type(value).__name__}")

    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Any, Any]:
        return None, data

    def from_connect_header(self, topic, header_key, schema, value):
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic, header_key, data):
        return self.to_connect_data(topic, data)
