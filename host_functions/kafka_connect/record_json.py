"""``get_record``/``set_record``: the record as a JSON document, on both paths.

The document is ``{"headers": {name: base64}, "topic": str, "key": base64,
"value": base64}``; a null key or value is left out, for repeated header
names the last wins.  Both paths build and parse it with the functions here,
so they agree byte for byte and error for error.

On the fast path the adapter builds ``get_record``'s document itself
(:mod:`host_functions.kafka_connect._adapter_json`) unless a topic or header name is not
ASCII, and parses plain ``set_record`` documents itself
(:mod:`host_functions.kafka_connect._adapter_set_record`); otherwise it spills the current record's
state (where its bytes are, in ``$in`` or in an output memory) into a block
of ``$in`` (:data:`host_functions.kafka_connect.layout.S_STATE`) and calls
:class:`RecordJson`: ``get_record`` writes the document at the scratch cursor
for the adapter to hand to the guest, ``set_record`` writes the new bytes to
scratch and points the state at them, and the adapter reloads the state.
"""

from __future__ import annotations

import base64
import json
import struct
from typing import TYPE_CHECKING, Any, Callable

from host_functions.kafka_connect import layout as A
from host_functions.runtime.sandbox import Failure

if TYPE_CHECKING:
    from host_functions.runtime.memory import GuestMemory
    from host_functions.runtime.sandbox import Settings

__all__ = ["record_json", "parse_record_json", "RecordJson", "utf8"]

Headers = list[tuple[str, "bytes | None"]]

_STATE = struct.Struct(f"<{len(A.STATE_FIELDS)}i")
_ENTRY = struct.Struct("<4i")  # a $ch entry: name ptr, name len, value ptr, value len (-1: null)


def record_json(topic: str, key: bytes | None, value: bytes | None, headers: Headers) -> bytes:
    document: dict[str, Any] = {"headers": {name: _b64(data) for name, data in headers}, "topic": topic}
    if key is not None:
        document["key"] = _b64(key)
    if value is not None:
        document["value"] = _b64(value)
    return json.dumps(document, separators=(",", ":")).encode("utf-8")


def parse_record_json(raw: bytes) -> tuple[str | None, bytes | None, bytes | None, Headers]:
    """(topic or None when absent, key, value, headers); :class:`Failure` when it is not such a document."""
    try:
        document = json.loads(raw)
        headers = [(str(k), _unb64(v)) for k, v in (document.get("headers") or {}).items()]
        key, value = _unb64(document.get("key")), _unb64(document.get("value"))
        topic = document.get("topic")
    except (ValueError, TypeError, AttributeError) as exc:
        raise Failure(f"set_record: not a record JSON object: {exc}") from exc
    return (None if topic is None else str(topic)), key, value, headers


def utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Failure(f"{what} is not valid UTF-8: {exc}") from exc


def _length(data: bytes | None) -> int:
    return -1 if data is None else len(data)


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: Any) -> bytes | None:
    if text is None:
        return None
    return base64.b64decode(text, validate=True)


class RecordJson:
    """The fast path's ``get_record``/``set_record``, working on the adapter's spilled state.

    ``memory(name)`` gives one of the adapter's memories (a
    :class:`GuestMemory`: ``in``, ``ch`` and the output memories), and
    ``read_guest(ptr, len)`` copies guest bytes with the reference path's
    bounds check; ``settings`` bound how far the memories grow.
    """

    def __init__(
        self, memory: Callable[[str], GuestMemory], read_guest: Callable[[int, int], bytes], settings: Settings
    ) -> None:
        self._memory, self._read_guest, self._settings = memory, read_guest, settings

    # --- the host functions ---------------------------------------------------

    def get_record(self) -> int:
        staged = self._memory("in")
        state = self._state(staged)
        key = self._bytes(state, "k", "ok", staged)
        value = self._bytes(state, "v", "ov", staged)
        # set_topic/set_header bytes are checked when the record is output; the JSON needs them now
        topic = utf8(self._bytes(state, "t", "otp", staged) or b"", "set_topic: the topic")
        headers = [(utf8(name, "set_header: the header name"), data) for name, data in self._headers(state, staged)]
        document = record_json(topic, key, value, headers)
        self._write(state["sc"], document)
        return len(document)

    def set_record(self, ptr: int, length: int) -> None:
        topic, key, value, headers = parse_record_json(self._read_guest(ptr, length))
        staged = self._memory("in")
        state = self._state(staged)
        start = state["sc"]
        blob = bytearray()

        def put(data: bytes) -> int:
            at = start + len(blob)
            blob.extend(data)
            return at

        for prefix, data in (("k", key), ("v", value), ("t", None if topic is None else topic.encode("utf-8"))):
            if prefix == "t" and data is None:
                continue  # no topic in the document: the record keeps its topic
            state[f"{prefix}p"], state[f"{prefix}l"], state[f"{prefix}w"] = put(data or b""), _length(data), 0
        if topic is not None:
            state["mask"] |= A.SET_TOPIC
        entries = bytearray()
        for name, data in headers:
            name_bytes = name.encode("utf-8")
            entries += _ENTRY.pack(put(name_bytes), len(name_bytes), put(data or b""), _length(data))
        self._write(start, bytes(blob))
        table = self._memory("ch")
        table.grow_to(len(entries), "the record's output", self._settings)
        table.write(0, bytes(entries))
        state["hn"], state["sc"] = len(headers), start + len(blob)
        state["mask"] |= A.SET_KEY | A.SET_VALUE | A.SET_HEADERS
        staged.write(A.S_STATE, _STATE.pack(*(state[name] for name in A.STATE_FIELDS)))

    # --- the spilled state ----------------------------------------------------

    def _state(self, staged: GuestMemory) -> dict[str, int]:
        return dict(zip(A.STATE_FIELDS, _STATE.unpack(staged.read(A.S_STATE, _STATE.size))))

    def _bytes(self, state: dict[str, int], prefix: str, output_memory: str, staged: GuestMemory) -> bytes | None:
        length = state[f"{prefix}l"]
        if length < 0:
            return None
        memory = self._memory(output_memory) if state[f"{prefix}w"] else staged
        return memory.read(state[f"{prefix}p"], length)

    def _headers(self, state: dict[str, int], staged: GuestMemory) -> list[tuple[bytes, bytes | None]]:
        table = self._memory("ch").read(0, _ENTRY.size * state["hn"])
        headers = []
        for name_ptr, name_len, value_ptr, value_len in _ENTRY.iter_unpack(table):
            value = None if value_len < 0 else staged.read(value_ptr, value_len)
            headers.append((staged.read(name_ptr, name_len), value))
        return headers

    def _write(self, at: int, data: bytes) -> int:
        """Copy ``data`` into ``$in`` at ``at``; the position after it."""
        end = at + len(data)
        staged = self._memory("in")
        staged.grow_to(end, "the record's output", self._settings)
        staged.write(at, data)
        return end
