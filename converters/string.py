"""Strings encoded with a configurable character set (UTF-8 by default)."""

from __future__ import annotations

import codecs
import functools
from typing import Any, Callable, Sequence

from converters._java_types import java_to_string
from smt.config import ConfigDef, ConfigType, Importance
from smt.converter import Converter, HeaderConverter, OnError, raise_error
from smt.errors import DataError


def _known_encoding(name: str) -> None:
    try:
        codecs.lookup(name)
    except LookupError:
        raise ValueError(f"unknown character encoding '{name}'") from None


def java_charset(name: str) -> tuple[Callable[[str], bytes], Callable[[bytes], str]]:
    """(encode, decode) of the Java charset ``name``.

    Java's UTF-16 and UTF-32 read big-endian unless a byte-order mark says
    otherwise, and its UTF-16 writes a big-endian mark before any text; Python's own
    codecs of those names use the machine's byte order.
    """
    key = codecs.lookup(name).name
    if key in ("utf-16", "utf-32"):
        big = f"{key}-be"
        marks = (
            {codecs.BOM_UTF16_BE: "utf-16-be", codecs.BOM_UTF16_LE: "utf-16-le"}
            if key == "utf-16"
            else {codecs.BOM_UTF32_BE: "utf-32-be", codecs.BOM_UTF32_LE: "utf-32-le"}
        )
        mark = codecs.BOM_UTF16_BE if key == "utf-16" else b""

        def decode(data: bytes) -> str:
            for bom, codec in marks.items():
                if data.startswith(bom):
                    return data[len(bom) :].decode(codec)
            return data.decode(big)

        return (lambda text: mark + text.encode(big) if text else b""), decode
    return functools.partial(str.encode, encoding=name), functools.partial(bytes.decode, encoding=name)


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

    def configure(self, configs, is_key: bool = False, context=None) -> None:
        super().configure(configs, is_key, context)
        self._encode, self._decode = java_charset(self.encoding)

    def from_connect_data(self, topic: str, schema: Any, value: Any) -> bytes | None:
        if value is None:
            return None
        # Kafka writes value.toString(): Double.toString's 1.0E7, Float's 10.03, a map's {a=1}
        text = value if type(value) is str else java_to_string(value)
        try:
            return self._encode(text)
        except UnicodeEncodeError as exc:
            raise self.error(
                topic, f"cannot encode {text[exc.start : exc.end]!r} at character {exc.start} as {self.encoding}"
            ) from exc

    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Any, Any]:
        if data is None:
            return None, None
        try:
            return None, self._decode(bytes(data))
        except UnicodeDecodeError as exc:
            raise self._decode_error(topic, exc) from exc

    def to_connect_batch(
        self, topics: Sequence[str], data: Sequence[bytes | None], on_error: OnError = raise_error
    ) -> tuple[None, list[Any]]:
        decode = self._decode
        try:
            return None, [None if item is None else decode(item) for item in data]
        except UnicodeDecodeError:
            pass  # find and report the bad rows one by one
        values: list[Any] = []
        for row, item in enumerate(data):
            if item is None:
                values.append(None)
                continue
            try:
                values.append(decode(item))
            except UnicodeDecodeError as exc:
                on_error(row, self._decode_error(topics[row], exc))
                values.append(None)
        return None, values

    def from_connect_batch(
        self,
        topics: Sequence[str],
        schemas: Sequence[Any] | None,
        values: Sequence[Any],
        on_error: OnError = raise_error,
    ) -> list[bytes | None]:
        encode = self._encode
        if all(type(v) is str or v is None for v in values):
            try:
                return [None if v is None else encode(v) for v in values]
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
