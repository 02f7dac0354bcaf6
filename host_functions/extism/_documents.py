"""Records as the JSON documents of the record shape (record in, records out).

In: ``{"topic": str, "key": ..., "value": ..., "headers": [{"key": str, "value": ...}]}``.
A key, value or header value goes in as the chain holds it: text as a JSON string,
bytes as a string when they are UTF-8 and otherwise base64 under ``<name>_base64``
(the convention of the ``jsonl`` file format), structured data (maps, arrays, numbers)
as JSON (Connect structs through the JSON converter, schemaless), null as ``null``.

Out: a JSON array of such records: none drops the input, several fan it out.  A field
an output record leaves out keeps the input record's; ``topic`` routes it.  What comes
back is decoded the way it went in: a value (or key) that was bytes comes back as
bytes (a string as its UTF-8, structured data as its JSON text), text as text,
structured data as structured data without a schema; ``<name>_base64`` is always bytes
and header values are always bytes.  Partition, offset and timestamp are the input's.
"""

from __future__ import annotations

import base64
import binascii
import functools
from typing import Any, Callable, Sequence

import orjson

from smt.batch import RecordBatch
from smt.converter import load_converter

__all__ = ["RecordDocuments", "DocumentError"]

_PLAIN = (str, int, float, bool, dict, list)


class DocumentError(Exception):
    """An output that is not a JSON array of records; the message says why."""


class RecordDocuments:
    """Encodes a batch's records as input documents and decodes the plug-in's outputs."""

    def __init__(self, max_outputs: int) -> None:
        self.max_outputs = max_outputs

    @functools.cached_property
    def _json(self) -> dict[bool, Any]:
        """The JSON converters (schemaless) for keys and values that are not JSON-native (structs, decimals)."""
        return {is_key: load_converter("json", {"schemas.enable": "false"}, is_key) for is_key in (True, False)}

    # --- in ------------------------------------------------------------------------

    def encode(self, batch: RecordBatch, fail: Callable[[int, str], None]) -> list[bytes | None]:
        """One document per row; None for a row that cannot be encoded (reported through ``fail``)."""
        documents: list[bytes | None] = []
        dumps = orjson.dumps
        for row, (topic, key, value, headers) in enumerate(zip(batch.topic, batch.key, batch.value, batch.headers)):
            document = {"topic": topic}
            _put(document, "key", key)
            _put(document, "value", value)
            document["headers"] = [_header(name, data) for name, data in headers]
            try:
                documents.append(dumps(document))
            except TypeError:
                documents.append(self._encode_connect_data(batch, row, document, fail))
        return documents

    def _encode_connect_data(self, batch: RecordBatch, row: int, document: dict, fail) -> bytes | None:
        """The document with key and value written by the JSON converter (structs, decimals, ...)."""
        topic = document["topic"]
        try:
            for name, is_key in (("key", True), ("value", False)):
                data = batch.column(name)[row]
                if data is not None and not isinstance(data, (bytes, bytearray, str)):
                    text = self._json[is_key].from_connect_data(topic, batch.column(f"{name}_schema")[row], data)
                    document[name] = orjson.Fragment(text)
            return orjson.dumps(document)
        except Exception as exc:  # a value JSON cannot hold fails its record only
            fail(row, f"cannot give the record to the plug-in as JSON: {type(exc).__name__}: {exc}")
            return None

    # --- out -----------------------------------------------------------------------

    def parse(self, data: bytes, lengths: Sequence[int]) -> list[Any]:
        """Each of the comma-separated outputs in ``data`` parsed (one ``loads`` for all when every
        one is a single JSON value); one that is not becomes a :class:`DocumentError`."""
        try:
            parsed = orjson.loads(b"[" + data + b"]")
            if len(parsed) == len(lengths):
                return parsed
        except orjson.JSONDecodeError:
            pass
        outputs, at = [], 0
        for length in lengths:
            outputs.append(_loads_or_error(data[at : at + length]))
            at += length + 1
        return outputs

    def decode(
        self, rows: Sequence[int], parsed: Sequence[Any], batch: RecordBatch, fail: Callable[[int, str], None]
    ) -> tuple[list[int], list[tuple]]:
        """The output records of the input ``rows`` (``parsed`` outputs, one per row): their parent rows,
        and each record's ``(topic, key_schema, key, value_schema, value, headers)``.  A row whose
        output is not a JSON array of records fails (through ``fail``) and gives none."""
        topics, keys, values, all_headers = batch.topic, batch.key, batch.value, batch.headers
        key_schemas, value_schemas = batch.key_schema, batch.value_schema
        parents: list[int] = []
        records: list[tuple] = []
        for row, output in zip(rows, parsed):
            try:
                if not isinstance(output, list):
                    raise (
                        output
                        if isinstance(output, DocumentError)
                        else DocumentError(f"the output is not a JSON array of records but {_json_kind(output)}")
                    )
                if len(output) > self.max_outputs:
                    raise DocumentError(
                        f"the output holds {len(output)} records for one input record; "
                        f"max.outputs.per.record={self.max_outputs}"
                    )
                decoded = [
                    _record(
                        document,
                        position,
                        topics[row],
                        key_schemas[row],
                        keys[row],
                        value_schemas[row],
                        values[row],
                        all_headers[row],
                    )
                    for position, document in enumerate(output)
                ]
            except DocumentError as exc:
                fail(row, str(exc))
                continue
            parents.extend([row] * len(decoded))
            records.extend(decoded)
        return parents, records


def _record(
    document: Any, position: int, topic: str, key_schema: Any, key: Any, value_schema: Any, value: Any, headers: tuple
) -> tuple:
    if not isinstance(document, dict):
        raise DocumentError(f"output record {position} is {_json_kind(document)}, not a JSON object")
    new_topic = document.get("topic")
    if new_topic is None:
        new_topic = topic
    elif not isinstance(new_topic, str):
        raise DocumentError(f"output record {position}: topic is {_json_kind(new_topic)}, not a string")
    key_schema, key = _field(document, "key", key, key_schema, position)
    value_schema, value = _field(document, "value", value, value_schema, position)
    if "headers" in document:
        headers = _headers(document["headers"], position)
    return new_topic, key_schema, key, value_schema, value, headers


def _put(document: dict, name: str, data: Any) -> None:
    if isinstance(data, (bytes, bytearray)):
        try:
            document[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            document[f"{name}_base64"] = base64.b64encode(data).decode("ascii")
    else:
        document[name] = data  # text, null, and JSON-native data as they are; the rest: see encode


def _header(name: str, data: Any) -> dict:
    header = {"key": name}
    _put(header, "value", data)
    return header


def _field(document: dict, name: str, old: Any, old_schema: Any, position: int) -> tuple[Any, Any]:
    encoded = document.get(f"{name}_base64")
    if encoded is not None:
        return None, _unbase64(encoded, f"output record {position}: {name}_base64")
    if name not in document:
        return old_schema, old
    data = document[name]
    if data is None:
        return None, None
    if isinstance(old, (bytes, bytearray)):  # bytes in, bytes out
        return None, data.encode("utf-8") if isinstance(data, str) else orjson.dumps(data)
    return None, data


def _headers(headers: Any, position: int) -> tuple:
    if headers is None:
        return ()
    if not isinstance(headers, list):
        raise DocumentError(f"output record {position}: headers is {_json_kind(headers)}, not an array")
    result = []
    for header in headers:
        if not isinstance(header, dict) or not isinstance(header.get("key"), str):
            raise DocumentError(f"output record {position}: a header is not an object with a string key")
        encoded = header.get("value_base64")
        if encoded is not None:
            data = _unbase64(encoded, f"output record {position}: header {header['key']!r} value_base64")
        else:
            data = header.get("value")
            if data is not None:
                data = data.encode("utf-8") if isinstance(data, str) else orjson.dumps(data)
        result.append((header["key"], data))
    return tuple(result)


def _unbase64(text: Any, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, TypeError, ValueError) as exc:
        raise DocumentError(f"{what} is not base64: {exc}") from exc


def _loads_or_error(output: bytes) -> Any:
    try:
        return orjson.loads(output)
    except orjson.JSONDecodeError as exc:
        return DocumentError(f"the output is not JSON: {exc}")


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(type(value), "a number")
