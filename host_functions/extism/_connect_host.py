"""The host-function shape: the Kafka Connect Extism transformer's ``extism:host/user`` functions.

The plug-in's export takes no input; it reads and changes the record through
``getKey``/``setKey``, ``getValue``/``setValue``, ``getTopic``/``setTopic``,
``getHeader``/``setHeader`` and ``getRecord``/``setRecord``, each passing one kernel
memory handle (the table is in ``host_functions/ABI.md``, "Extism plug-ins").  Bytes
go through the transform's converters, as on the Kafka Connect ABI; one output record
per input record, always.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Callable

import orjson

from host_functions.kafka_connect.layout import SET_HEADERS, SET_KEY, SET_TOPIC, SET_VALUE
from host_functions.kafka_connect.record_json import utf8
from host_functions.kafka_connect.reference import RecordState
from host_functions.runtime.record_bytes import Converters
from host_functions.runtime.sandbox import Failure
from smt.batch import RecordBatch

__all__ = ["ConnectRecords"]


class ConnectRecords:
    """The records of a batch as the host functions see them, and the records they become."""

    def __init__(self, converters: Converters) -> None:
        self.converters = converters
        self.states: list[RecordState | None] = []

    def stage(self, batch: RecordBatch, fail: Callable[[int, str], None]) -> None:
        """Convert the batch's keys, values and headers to bytes, a column at a time."""
        c, topics = self.converters, batch.topic
        failed: set[int] = set()

        def on_error(converter_key: str) -> Callable[[int, BaseException], None]:
            def report(row: int, exc: BaseException) -> None:
                failed.add(row)
                fail(row, f"{converter_key} failed: {type(exc).__name__}: {exc}")

            return report

        keys = c.key.from_connect_batch(topics, batch.key_schema, batch.key, on_error("key.converter"))
        values = c.value.from_connect_batch(topics, batch.value_schema, batch.value, on_error("value.converter"))
        self.states = []
        for row, (topic, key, value, headers) in enumerate(zip(topics, keys, values, batch.headers)):
            try:
                converted = [(name, c.header.from_connect_header(topic, name, None, data)) for name, data in headers]
            except Exception as exc:  # a header the converter refuses fails its record only
                on_error("header.converter")(row, exc)
                converted = []
            self.states.append(
                None
                if row in failed
                else RecordState(key, value, topic, converted, None, None, None, _converted_already)
            )

    def functions(self, memory: Any, current_row: Callable[[], int]) -> dict[str, Callable[..., Any]]:
        """The host functions (by canonical name) for the instance ``memory``, serving the state of
        the row being run (``current_row()``, an index into :attr:`states`)."""

        def state() -> RecordState:
            return self.states[current_row()]

        def setter(attribute: str, bit: int, decode: Callable[[bytes], Any] = bytes) -> Callable[[int], None]:
            def set_part(handle: int) -> None:
                current = state()
                setattr(current, attribute, decode(memory.read_block(handle)))
                current.mask |= bit

            return set_part

        def get_header(handle: int) -> int:
            name = utf8(memory.read_block(handle), "getHeader: the header name")
            data = next((d for n, d in reversed(state().headers) if n == name), None)
            return _give(memory, data)

        def set_header(handle: int) -> None:
            document = _document(memory.read_block(handle), "setHeader")
            current = state()
            current.headers.append((_text(document.get("key"), "setHeader: key"), _bytes(document.get("value"))))
            current.mask |= SET_HEADERS

        return {
            "getKey": lambda: _give(memory, state().key),
            "setKey": setter("key", SET_KEY),
            "getValue": lambda: _give(memory, state().value),
            "setValue": setter("value", SET_VALUE),
            "getTopic": lambda: _give(memory, state().topic.encode("utf-8")),
            "setTopic": setter("topic", SET_TOPIC, lambda data: utf8(data, "setTopic: the topic")),
            "getHeader": get_header,
            "setHeader": set_header,
            "getRecord": lambda: _give(memory, _record_document(state())),
            "setRecord": lambda handle: _set_record(state(), memory.read_block(handle)),
        }

    def record(self, batch: RecordBatch, row: int) -> tuple[str, Any, Any, Any, Any, tuple]:
        """Row ``row`` as the plug-in left it: ``(topic, key_schema, key, value_schema, value, headers)``."""
        state, c = self.states[row], self.converters
        topic = state.topic
        key_schema, key = batch.key_schema[row], batch.key[row]
        value_schema, value = batch.value_schema[row], batch.value[row]
        headers = batch.headers[row]
        try:
            if state.mask & SET_KEY:
                key_schema, key = c.key.to_connect_data(topic, state.key)
            if state.mask & SET_VALUE:
                value_schema, value = c.value.to_connect_data(topic, state.value)
            if state.mask & SET_HEADERS:
                headers = tuple(
                    (name, c.header.to_connect_header(topic, name, data)[1]) for name, data in state.headers
                )
        except Exception as exc:  # a converter failure fails this record only
            raise Failure(f"a converter failed on what the plug-in set: {type(exc).__name__}: {exc}") from exc
        return topic, key_schema, key, value_schema, value, headers


def _give(memory: Any, data: bytes | None) -> int:
    return 0 if data is None else memory.give(data)


def _record_document(state: RecordState) -> bytes:
    document: dict[str, Any] = {
        "headers": [_without_nulls({"key": name, "value": _b64(data)}) for name, data in state.headers],
        "topic": state.topic,
    }
    if state.key is not None:
        document["key"] = _b64(state.key)
    if state.value is not None:
        document["value"] = _b64(state.value)
    return orjson.dumps(document)


def _set_record(state: RecordState, raw: bytes) -> None:
    document = _document(raw, "setRecord")
    headers = document.get("headers") or []
    if not isinstance(headers, list) or not all(isinstance(h, dict) for h in headers):
        raise Failure("setRecord: headers is not an array of {key, value} objects")
    state.headers = [(_text(h.get("key"), "setRecord: a header key"), _bytes(h.get("value"))) for h in headers]
    state.key, state.value = _bytes(document.get("key")), _bytes(document.get("value"))
    if document.get("topic") is not None:
        state.topic = _text(document["topic"], "setRecord: topic")
    state.mask |= SET_KEY | SET_VALUE | SET_TOPIC | SET_HEADERS


def _document(raw: bytes, function: str) -> dict:
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise Failure(f"{function}: not a JSON document: {exc}") from exc
    if not isinstance(document, dict):
        raise Failure(f"{function}: not a JSON object")
    return document


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise Failure(f"{what} is not a string")
    return value


def _bytes(text: Any) -> bytes | None:
    if text is None:
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, TypeError, ValueError) as exc:
        raise Failure(f"not base64: {exc}") from exc


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _without_nulls(document: dict) -> dict:
    return {name: value for name, value in document.items() if value is not None}


def _converted_already(part: str) -> Any:
    # stage() converts every part up front (per column), so a RecordState here never reads lazily.
    raise AssertionError(f"the record's {part} was converted when the batch was staged")
