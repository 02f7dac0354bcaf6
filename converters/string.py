"""Strings encoded with a configurable character set (UTF-8 by default)."""

from __future__ import annotations

import codecs
from typing import Any, Sequence

from converters.base import Converter, HeaderConverter, OnError, _raise
from smt.config import ConfigDef, ConfigType, Importance
from smt.data import Float32, format_float
from smt.data.values import format_double
from smt.errors import DataError


def _known_encoding(name: str) -> None:
    try:
        codecs.lookup(name)
    except LookupError:
        raise ValueError(f"unknown character encoding '{name}'") from None


class StringConverter(Converter, HeaderConverter):
    """Writes a value's string form; reads bytes as an optional string.

    Mirrors Kafka Connect's StringConverter: ``converter.encoding`` (default
    UTF-8) names the character set.
    """

    name = "string"
    null_is_null = True  # null bytes <-> None, as in Kafka
    aliases = ("org.apache.kafka.connect.storage.StringConverter", "StringConverter")
    config_def = ConfigDef().define(
        "converter.encoding",
        ConfigType.STRING,
        "UTF-8",
        _known_encoding,
        Importance.HIGH,
        "The name of the character set used to encode and decode strings.",
    )

    @property
    def encoding(self) -> str:
        return self.config["converter.encoding"]

    def from_connect_data(self, topic: str, schema: Any, value: Any) -> bytes | None:
        if value is None:
            return None
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, Float32):
            value = format_float(value)  # Kafka writes Float.toString: 10.03
        elif isinstance(value, float):
            value = format_double(value)  # Kafka writes Double.toString: 1.0E7, not 10000000.0
        text = str(value)
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            raise self.error(
                topic, f"cannot encode {text[exc.start:exc.end]!r} at character {exc.start} as {self.encoding}"
            ) from exc

    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Any, Any]:
        if data is None:
            return None, None
        try:
            return None, bytes(data).decode(self.encoding)
        except UnicodeDecodeError as exc:
            raise self._decode_error(topic, exc) from exc

    def to_connect_batch(
        self, topics: Sequence[str], data: Sequence[bytes | None], on_error: OnError = _raise
    ) -> tuple[None, list[Any]]:
        encoding = self.encoding
        try:
            return None, [None if item is None else item.decode(encoding) for item in data]
        except UnicodeDecodeError:
            pass  # find and report the bad rows one by one
        values: list[Any] = []
        for row, item in enumerate(data):
            if item is None:
                values.append(None)
                continue
            try:
                values.append(item.decode(encoding))
            except UnicodeDecodeError as exc:
                on_error(row, self._decode_error(topics[row], exc))
                values.append(None)
        return None, values

    def from_connect_batch(
        self,
        topics: Sequence[str],
        schemas: Sequence[Any] | None,
        values: Sequence[Any],
        on_error: OnError = _raise,
    ) -> list[bytes | None]:
        encoding = self.encoding
        if all(type(v) is str or v is None for v in values):
            try:
                return [None if v is None else v.encode(encoding) for v in values]
            except UnicodeEncodeError:
                pass  # a character the encoding lacks: report it per row below
        return super().from_connect_batch(topics, schemas, values, on_error)

    def _decode_error(self, topic: str, exc: UnicodeDecodeError) -> DataError:
        return self.error(
            topic,
            f"invalid {self.encoding} at byte {exc.start}: {exc.reason} in {bytes(exc.object[:40])!r}",
        )

    def from_connect_header(self, topic, header_key, schema, value):
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic, header_key, data):
        return self.to_connect_data(topic, data)
