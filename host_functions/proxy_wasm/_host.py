"""The host functions a proxy-wasm filter imports from ``env``, for one instance.

All of them run at most a few times per Produce request (a filter reads the
downstream data once and replaces it once), so they are Python.  What a
network filter on a Kafka stream uses is served:

* buffers: ``DOWNSTREAM_DATA`` (read, replaced, appended to; bounded by
  ``memory.max.bytes``), ``PLUGIN_CONFIGURATION`` (``transforms.X.config.*``
  as a JSON object) and an empty ``VM_CONFIGURATION``;
* properties: ``listener_direction`` (1, inbound) and ``connection_id``
  (``connection.id``) as 8-byte little-endian integers, as Envoy serializes
  them, and ``plugin_name`` (the transform's alias);
* ``proxy_continue_stream``/``proxy_close_stream``, ``proxy_log`` (to the
  transform's logger), log level, current time, metrics (kept per instance),
  ticks (accepted; they never fire), effective context, ``proxy_done``.

Everything else (HTTP, gRPC, shared data and queues, foreign functions)
answers ``UNIMPLEMENTED``.  Data handed to the filter is copied into memory
it allocates itself (``proxy_on_memory_allocate``), as the SDKs expect.
"""

from __future__ import annotations

import logging
import struct
import time
from typing import Any, Callable

import wasmtime

from host_functions.runtime.memory import GuestMemory
from host_functions.runtime.sandbox import Failure, Settings, weak_callback

__all__ = ["FilterHost", "SIGNATURES", "DOWNSTREAM_DATA", "PLUGIN_CONFIGURATION", "LISTENER_INBOUND"]

OK, NOT_FOUND, BAD_ARGUMENT, INVALID_MEMORY_ACCESS, UNIMPLEMENTED = 0, 1, 2, 6, 12
HTTP_REQUEST_BODY, DOWNSTREAM_DATA, VM_CONFIGURATION, PLUGIN_CONFIGURATION = 0, 2, 6, 7
STREAM_DOWNSTREAM = 2
#: Envoy's ``listener_direction``: the filter sees what clients send towards the broker.
LISTENER_INBOUND = 1
_LOG_LEVELS = {
    0: logging.DEBUG,
    1: logging.DEBUG,
    2: logging.INFO,
    3: logging.WARNING,
    4: logging.ERROR,
    5: logging.CRITICAL,
}
_MASK32 = 0xFFFFFFFF


class FilterHost:
    """The state the host functions share: memory, buffers, properties, metrics and what the filter asked."""

    def __init__(self, settings: Settings, plugin_configuration: bytes, max_buffer_bytes: int) -> None:
        self.settings = settings
        self.max_buffer_bytes = max_buffer_bytes
        self.buffers: dict[int, bytes | bytearray] = {VM_CONFIGURATION: b"", PLUGIN_CONFIGURATION: plugin_configuration}
        self.properties: dict[str, bytes] = {
            "listener_direction": struct.pack("<q", LISTENER_INBOUND),
            "plugin_name": settings.alias.encode(),
        }
        self.metrics: dict[int, int] = {}
        self.contexts: set[int] = set()
        self.continued = self.closed = False
        self.memory: wasmtime.Memory | None = None
        self.allocate: wasmtime.Func | None = None
        self._logger = settings.logger

    def set_connection(self, context_id: int) -> None:
        """A new connection: its id, an empty downstream buffer, no continue or close asked yet."""
        self.properties["connection_id"] = self.properties["connection\0id"] = struct.pack("<Q", context_id)
        self.buffers[DOWNSTREAM_DATA] = bytearray()
        self.continued = self.closed = False

    def define(self, linker: wasmtime.Linker, imports: tuple[tuple[str, wasmtime.FuncType], ...]) -> None:
        """Every ``env`` function the filter imports: served, or a stub answering UNIMPLEMENTED."""
        for name, func_type in imports:
            served = SIGNATURES.get(name)
            if served is not None and [str(p) for p in func_type.params] == list(served):
                # weakly: wasmtime-py keeps callbacks in a process-wide table (see weak_callback)
                linker.define_func(
                    "env", name, func_type, weak_callback(getattr(self, name[len("proxy_") :])), access_caller=True
                )
            else:
                linker.define_func("env", name, func_type, _unimplemented, access_caller=False)

    # --- memory -----------------------------------------------------------------------

    def _read(self, caller, pointer: int, size: int) -> bytes:
        try:
            return GuestMemory(self.memory, caller).read(pointer & _MASK32, size & _MASK32)
        except Failure:  # outside the filter's memory: the call answers INVALID_MEMORY_ACCESS
            raise _BadPointer() from None

    def _write(self, caller, pointer: int, data: bytes | memoryview) -> None:
        try:  # a buffer's slice is copied once, from where it is
            GuestMemory(self.memory, caller).write(pointer & _MASK32, data)
        except Failure:
            raise _BadPointer() from None

    def _give(self, caller, data: bytes | memoryview, pointer_out: int, size_out: int) -> int:
        """Copy ``data`` into memory the filter allocates; its address and size to the two out-pointers."""
        address = self.allocate(caller, len(data)) & _MASK32 if len(data) else 0
        if len(data) and not address:
            raise Failure(f"the filter could not allocate {len(data)} bytes (its allocator returned 0)")
        if len(data):
            self._write(caller, address, data)
        self._write(caller, pointer_out, struct.pack("<I", address))
        self._write(caller, size_out, struct.pack("<I", len(data)))
        return OK

    # --- host functions (named after the import, without proxy_) ---------------------------

    def get_buffer_bytes(
        self, caller, buffer_id: int, start: int, max_size: int, pointer_out: int, size_out: int
    ) -> int:
        buffer = self.buffers.get(buffer_id)
        if buffer is None:
            return NOT_FOUND
        start, max_size = start & _MASK32, max_size & _MASK32
        if start > len(buffer):
            return BAD_ARGUMENT
        view = memoryview(buffer)[start : start + max_size]
        try:
            return _guarded(lambda: self._give(caller, view, pointer_out, size_out))
        finally:
            view.release()  # a bytearray with a view on it cannot be resized

    def get_buffer_status(self, caller, buffer_id: int, size_out: int, flags_out: int) -> int:
        buffer = self.buffers.get(buffer_id)
        if buffer is None:
            return NOT_FOUND
        return _guarded(
            lambda: (
                self._write(caller, size_out, struct.pack("<I", len(buffer)))
                or self._write(caller, flags_out, b"\0\0\0\0")
            )
        )

    def set_buffer_bytes(self, caller, buffer_id: int, start: int, size: int, pointer: int, length: int) -> int:
        if buffer_id != DOWNSTREAM_DATA:
            return NOT_FOUND if buffer_id not in self.buffers else BAD_ARGUMENT
        buffer = self.buffers[DOWNSTREAM_DATA]
        start, size = min(start & _MASK32, len(buffer)), size & _MASK32
        grown = len(buffer) - min(size, len(buffer) - start) + (length & _MASK32)
        if grown > self.max_buffer_bytes:  # a filter appending without end must not take the host's memory
            raise Failure(
                f"the filter grew the downstream data to {grown} bytes, past {self.max_buffer_bytes} (memory.max.bytes)"
            )
        try:
            data = self._read(caller, pointer, length)
        except _BadPointer:
            return INVALID_MEMORY_ACCESS
        buffer[start : start + size] = data
        return OK

    def get_property(self, caller, path: int, path_size: int, pointer_out: int, size_out: int) -> int:
        try:
            name = self._read(caller, path, path_size).decode("utf-8", "replace")
        except _BadPointer:
            return INVALID_MEMORY_ACCESS
        value = self.properties.get(name)
        if value is None:
            return NOT_FOUND
        return _guarded(lambda: self._give(caller, value, pointer_out, size_out))

    def set_property(self, caller, path: int, path_size: int, pointer: int, length: int) -> int:
        try:
            self.properties[self._read(caller, path, path_size).decode("utf-8", "replace")] = self._read(
                caller, pointer, length
            )
        except _BadPointer:
            return INVALID_MEMORY_ACCESS
        return OK

    def log(self, caller, level: int, pointer: int, size: int) -> int:
        try:
            message = self._read(caller, pointer, size).decode("utf-8", "replace")
        except _BadPointer:
            return INVALID_MEMORY_ACCESS
        if level not in _LOG_LEVELS:
            return BAD_ARGUMENT
        self._logger.log(_LOG_LEVELS[level], "%s", message)
        return OK

    def get_log_level(self, caller, level_out: int) -> int:
        effective = self._logger.getEffectiveLevel()
        level = next((ours for ours, python in sorted(_LOG_LEVELS.items()) if python >= effective and ours), 4)
        return _guarded(lambda: self._write(caller, level_out, struct.pack("<I", level)))

    def get_current_time_nanoseconds(self, caller, time_out: int) -> int:
        return _guarded(lambda: self._write(caller, time_out, struct.pack("<Q", time.time_ns())))

    def continue_stream(self, caller, stream_type: int) -> int:
        if stream_type == STREAM_DOWNSTREAM:
            self.continued = True
        return OK

    def close_stream(self, caller, stream_type: int) -> int:
        self.closed = True
        return OK

    def set_tick_period_milliseconds(self, caller, period: int) -> int:
        return OK

    def set_effective_context(self, caller, context_id: int) -> int:
        return OK if context_id in self.contexts else BAD_ARGUMENT

    def done(self, caller) -> int:
        return OK

    def define_metric(self, caller, metric_type: int, name: int, name_size: int, id_out: int) -> int:
        metric_id = len(self.metrics) + 1
        self.metrics[metric_id] = 0
        return _guarded(lambda: self._write(caller, id_out, struct.pack("<I", metric_id)))

    def increment_metric(self, caller, metric_id: int, offset: int) -> int:
        if metric_id not in self.metrics:
            return NOT_FOUND
        self.metrics[metric_id] += offset
        return OK

    def record_metric(self, caller, metric_id: int, value: int) -> int:
        if metric_id not in self.metrics:
            return NOT_FOUND
        self.metrics[metric_id] = value
        return OK

    def get_metric(self, caller, metric_id: int, value_out: int) -> int:
        if metric_id not in self.metrics:
            return NOT_FOUND
        return _guarded(lambda: self._write(caller, value_out, struct.pack("<q", self.metrics[metric_id])))


#: The served host functions and their parameters (ABI v0.2.x); each returns an i32 status.
SIGNATURES: dict[str, tuple[str, ...]] = {
    "proxy_get_buffer_bytes": ("i32",) * 5,
    "proxy_get_buffer_status": ("i32",) * 3,
    "proxy_set_buffer_bytes": ("i32",) * 5,
    "proxy_get_property": ("i32",) * 4,
    "proxy_set_property": ("i32",) * 4,
    "proxy_log": ("i32",) * 3,
    "proxy_get_log_level": ("i32",),
    "proxy_get_current_time_nanoseconds": ("i32",),
    "proxy_continue_stream": ("i32",),
    "proxy_close_stream": ("i32",),
    "proxy_set_tick_period_milliseconds": ("i32",),
    "proxy_set_effective_context": ("i32",),
    "proxy_done": (),
    "proxy_define_metric": ("i32",) * 4,
    "proxy_increment_metric": ("i32", "i64"),
    "proxy_record_metric": ("i32", "i64"),
    "proxy_get_metric": ("i32", "i32"),
}


class _BadPointer(Exception):
    """A pointer the filter passed lies outside its memory."""


def _guarded(call: Callable[[], Any]) -> int:
    try:
        return call() or OK
    except _BadPointer:
        return INVALID_MEMORY_ACCESS


def _unimplemented(*_: int) -> int:
    return UNIMPLEMENTED
