"""SimpleHeaderConverter: header values as their string form, read back by inference."""

from __future__ import annotations

import logging
from typing import Any

from smt.converter import HeaderConverter
from smt.data import Schema, convert_to_string, parse_string
from smt.errors import DataError

_log = logging.getLogger(__name__)


class SimpleHeaderConverter(HeaderConverter):
    """Kafka Connect's SimpleHeaderConverter.

    Writes a header value's string form in UTF-8 (``Values.convertToString``);
    reads by inference (``Values.parseString``): boolean, the smallest integer
    type, float, array, map, ISO date/time/timestamp, else string.  Bytes that
    are not UTF-8 stay bytes (BYTES schema), as Kafka falls back to them.
    """

    name = "simple"
    aliases = (
        "org.apache.kafka.connect.storage.SimpleHeaderConverter",
        "SimpleHeaderConverter",
        "simple-header",
    )

    def from_connect_header(self, topic: str, header_key: str, schema: Any, value: Any) -> bytes | None:
        if value is None:
            return None
        try:
            return convert_to_string(schema, value).encode("utf-8")
        except DataError as exc:
            raise self.header_error(topic, header_key, str(exc)) from exc

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> tuple[Any, Any]:
        if data is None:
            return None, None
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            _log.debug("header '%s' on topic '%s' is not UTF-8; keeping its bytes", header_key, topic)
            return Schema.BYTES_SCHEMA, bytes(data)
        return parse_string(text)
