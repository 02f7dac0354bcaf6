"""Kafka Connect's primitive converters: Short, Integer, Long, Float, Double and Boolean.

Each writes its one type in Kafka's serializer format (big-endian two's
complement integers, IEEE 754 floats, one byte 0x00/0x01 for booleans),
reads it back with the type's optional schema (so a null reads as a null of
that schema, as in Kafka), and refuses other types with Kafka's message.  Each
is a header converter too.  Whole columns go through numpy.

A Python ``int`` has no width: with a schema, the schema says which Java type
it would be (an INT32 is an ``Integer``, refused by LongConverter as Kafka
refuses it); without one, any integer in the type's range is taken.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import numpy as np

from converters._java_types import java_class_of
from smt.converter import Converter, HeaderConverter, OnError, raise_error
from smt.data import Float32, Schema, Type
from smt.data.logical import LOGICAL_NAMES

__all__ = [
    "BooleanConverter", "DoubleConverter", "FloatConverter", "IntegerConverter", "LongConverter", "ShortConverter",
]  # fmt: skip

_KAFKA_PACKAGE = "org.apache.kafka.connect.converters."


class _PrimitiveConverter(Converter, HeaderConverter):
    """One Java primitive type: its schema, byte width, numpy type and Kafka's names for it."""

    #: The type as Kafka's messages name it ("long").
    type_name: ClassVar[str] = ""
    #: The schema every read value has (Kafka's optional schema of the type).
    schema: ClassVar[Schema]
    #: The big-endian numpy type of the serialized form.
    dtype: ClassVar[str] = ""
    #: The Kafka deserializer's name in its size message ("LongDeserializer").
    deserializer: ClassVar[str] = ""

    @property
    def _width(self) -> int:
        return np.dtype(self.dtype).itemsize

    # --- writing ------------------------------------------------------------

    def from_connect_data(self, topic: str, schema: Any, value: Any) -> bytes | None:
        self._check_schema(topic, schema)
        if value is None:
            return None
        self._check_type(topic, schema, value)
        return self._pack(topic, value)

    def _check_schema(self, topic: str, schema: Any) -> None:
        """BooleanConverter checks the schema first, even of a null; the number converters do not."""

    def from_connect_batch(
        self,
        topics: Sequence[str],
        schemas: Sequence[Any] | None,
        values: Sequence[Any],
        on_error: OnError = raise_error,
    ) -> list[bytes | None]:
        if schemas is None and None not in values and self._plain_batch(values):
            try:
                data = np.asarray(values, dtype=self.dtype).tobytes()
            except (OverflowError, TypeError, ValueError):
                pass  # a value out of range: report it on its row below
            else:
                width = self._width
                return [data[i : i + width] for i in range(0, len(data), width)]
        return super().from_connect_batch(topics, schemas, values, on_error)

    def _plain_batch(self, values: Sequence[Any]) -> bool:
        """True when every value is of the type numpy can pack without a check per row."""
        return False

    def _check_type(self, topic: str, schema: Any, value: Any) -> None:
        if not self._accepts(schema, value):
            found = java_class_of(schema, value)
            raise self.error(
                topic,
                f"Failed to serialize to {self.type_name} (was {found}): "
                f"{found} cannot be cast to class {self._java_class}",
            )

    @property
    def _java_class(self) -> str:
        return java_class_of(self.schema, None).removeprefix("class ")

    def _accepts(self, schema: Any, value: Any) -> bool:
        if schema is not None:
            # Kafka casts the value: a logical type's value (a Date, a BigDecimal) fails, while a
            # value whose schema only carries a name of its own is the plain number it was.
            return schema.type is self.schema.type and schema.name not in LOGICAL_NAMES
        return java_class_of(None, value) == f"class {self._java_class}"

    def _pack(self, topic: str, value: Any) -> bytes:
        return np.asarray(value, dtype=self.dtype).tobytes()

    # --- reading ------------------------------------------------------------

    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Any, Any]:
        if data is None:
            return self.schema, None
        if len(data) != self._width:
            raise self.error(
                topic,
                f"Failed to deserialize {self.type_name}: Size of data received by "
                f"{self.deserializer} is not {self._width}",
            )
        return self.schema, self._unpack(topic, bytes(data))

    def _unpack(self, topic: str, data: bytes) -> Any:
        return np.frombuffer(data, dtype=self.dtype)[0].item()

    def to_connect_batch(
        self, topics: Sequence[str], data: Sequence[bytes | None], on_error: OnError = raise_error
    ) -> tuple[list[Any] | None, list[Any]]:
        width = self._width
        if all(item is not None and len(item) == width for item in data):
            values = self._from_array(np.frombuffer(b"".join(data), dtype=self.dtype))
            return [self.schema] * len(values), values
        schemas, values = super().to_connect_batch(topics, data, on_error)
        return schemas or [self.schema] * len(values), values

    def _from_array(self, array: np.ndarray) -> list[Any]:
        return array.tolist()

    # --- headers ------------------------------------------------------------

    def from_connect_header(self, topic: str, header_key: str, schema: Any, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> tuple[Any, Any]:
        return self.to_connect_data(topic, data)


class _IntegerConverter(_PrimitiveConverter):
    def _accepts(self, schema: Any, value: Any) -> bool:
        if schema is None and type(value) is int:
            return True  # no width without a schema: any int of the range (checked when packed)
        return super()._accepts(schema, value)

    def _plain_batch(self, values: Sequence[Any]) -> bool:
        return all(type(v) is int for v in values)

    def _pack(self, topic: str, value: Any) -> bytes:
        bits = self._width * 8
        if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
            raise self.error(topic, f"Failed to serialize to {self.type_name}: {value} is out of range")
        return int(value).to_bytes(self._width, "big", signed=True)


class ShortConverter(_IntegerConverter):
    """Kafka Connect's ShortConverter: 16-bit integers, 2 bytes big-endian; reads OPTIONAL_INT16."""

    name = "short"
    aliases = (_KAFKA_PACKAGE + "ShortConverter", "ShortConverter")
    type_name, schema, dtype, deserializer = "short", Schema.OPTIONAL_INT16_SCHEMA, ">i2", "ShortDeserializer"


class IntegerConverter(_IntegerConverter):
    """Kafka Connect's IntegerConverter: 32-bit integers, 4 bytes big-endian; reads OPTIONAL_INT32."""

    name = "integer"
    aliases = (_KAFKA_PACKAGE + "IntegerConverter", "IntegerConverter")
    type_name, schema, dtype, deserializer = "integer", Schema.OPTIONAL_INT32_SCHEMA, ">i4", "IntegerDeserializer"


class LongConverter(_IntegerConverter):
    """Kafka Connect's LongConverter: 64-bit integers, 8 bytes big-endian; reads OPTIONAL_INT64."""

    name = "long"
    aliases = (_KAFKA_PACKAGE + "LongConverter", "LongConverter")
    type_name, schema, dtype, deserializer = "long", Schema.OPTIONAL_INT64_SCHEMA, ">i8", "LongDeserializer"


class FloatConverter(_PrimitiveConverter):
    """Kafka Connect's FloatConverter: 32-bit IEEE 754 floats, 4 bytes big-endian; reads OPTIONAL_FLOAT32."""

    name = "float"
    aliases = (_KAFKA_PACKAGE + "FloatConverter", "FloatConverter")
    type_name, schema, dtype, deserializer = "float", Schema.OPTIONAL_FLOAT32_SCHEMA, ">f4", "Deserializer"

    def _plain_batch(self, values: Sequence[Any]) -> bool:
        return all(type(v) is Float32 for v in values)

    def _unpack(self, topic: str, data: bytes) -> Any:
        return Float32(super()._unpack(topic, data))

    def _from_array(self, array: np.ndarray) -> list[Any]:
        return [Float32(v) for v in array.tolist()]


class DoubleConverter(_PrimitiveConverter):
    """Kafka Connect's DoubleConverter: 64-bit IEEE 754 floats, 8 bytes big-endian; reads OPTIONAL_FLOAT64."""

    name = "double"
    aliases = (_KAFKA_PACKAGE + "DoubleConverter", "DoubleConverter")
    type_name, schema, dtype, deserializer = "double", Schema.OPTIONAL_FLOAT64_SCHEMA, ">f8", "Deserializer"

    def _plain_batch(self, values: Sequence[Any]) -> bool:
        return all(type(v) is float for v in values)


class BooleanConverter(_PrimitiveConverter):
    """Kafka Connect's BooleanConverter: one byte, 0x01 true and 0x00 false; reads OPTIONAL_BOOLEAN."""

    name = "boolean"
    aliases = (_KAFKA_PACKAGE + "BooleanConverter", "BooleanConverter")
    type_name, schema, dtype, deserializer = "boolean", Schema.OPTIONAL_BOOLEAN_SCHEMA, ">u1", "BooleanDeserializer"

    def _check_schema(self, topic: str, schema: Any) -> None:
        if schema is not None and schema.type is not Type.BOOLEAN:
            raise self.error(topic, f"Invalid schema type for BooleanConverter: {schema.type}")

    def _check_type(self, topic: str, schema: Any, value: Any) -> None:
        if not isinstance(value, bool):
            raise self.error(
                topic, f"BooleanConverter is not compatible with objects of type {java_class_of(schema, value)}"
            )

    def _plain_batch(self, values: Sequence[Any]) -> bool:
        return all(type(v) is bool for v in values)

    def _pack(self, topic: str, value: Any) -> bytes:
        return b"\x01" if value else b"\x00"

    def _unpack(self, topic: str, data: bytes) -> Any:
        if data not in (b"\x00", b"\x01"):
            raise self.error(
                topic,
                f"Failed to deserialize boolean: Unexpected byte received by "
                f"BooleanDeserializer: {int.from_bytes(data, 'big', signed=True)}",
            )
        return data == b"\x01"

    def to_connect_batch(
        self, topics: Sequence[str], data: Sequence[bytes | None], on_error: OnError = raise_error
    ) -> tuple[list[Any] | None, list[Any]]:
        schemas, values = Converter.to_connect_batch(self, topics, data, on_error)
        return schemas or [self.schema] * len(values), values
