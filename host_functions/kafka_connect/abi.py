"""The host-function ABI as data: every function, its signature and its rules.

One table (:data:`ABI_FUNCTIONS`) drives everything that must agree: the
Python host functions of the reference path, the generated adapter of the
fast path, build-time checks of a guest's imports and ``ABI.md``.
"""

from __future__ import annotations

import dataclasses

__all__ = [
    "ABI_VERSION",
    "ABI_MODULE",
    "ABI_VERSION_EXPORT",
    "AbiFunction",
    "ABI_FUNCTIONS",
    "RECORD_JSON",
    "pack",
    "unpack",
]

#: The ABI version this host implements. A guest may export ``smt_abi_version``
#: (an i32 global, or a function returning i32); guests without it are version 1.
ABI_VERSION = 1
#: Every host function is imported from this module name.
ABI_MODULE = "env"
ABI_VERSION_EXPORT = "smt_abi_version"

#: The guest's returned i64 carries an error when this bit of its length is set.
ERROR_BIT = 1 << 31


@dataclasses.dataclass(frozen=True)
class AbiFunction:
    name: str
    params: tuple[str, ...]
    results: tuple[str, ...]
    doc: str

    @property
    def signature(self) -> str:
        results = ", ".join(self.results) or "()"
        return f"({', '.join(self.params)}) -> {results}"


def _f(name: str, params: str, results: str, doc: str) -> AbiFunction:
    return AbiFunction(name, tuple(params.split()), tuple(results.split()), doc)


ABI_FUNCTIONS: tuple[AbiFunction, ...] = (
    _f("get_key", "", "i64", "Key bytes (through key.converter); 0 when the key is null."),
    _f("set_key", "i32 i32", "", "Replace the key with the bytes at (ptr, len)."),
    _f("get_value", "", "i64", "Value bytes (through value.converter); 0 when null."),
    _f("set_value", "i32 i32", "", "Replace the value with the bytes at (ptr, len)."),
    _f("get_topic", "", "i64", "Topic name, UTF-8."),
    _f("set_topic", "i32 i32", "", "Route the record: set its topic (UTF-8)."),
    _f("get_header", "i32 i32", "i64", "Bytes of the last header with that name; 0 when absent or null."),
    _f("set_header", "i32 i32 i32 i32", "", "Append a header (name ptr, name len, data ptr, data len)."),
    _f("get_record", "", "i64", "The record as JSON {headers, topic, key, value}; bytes in base64."),
    _f("set_record", "i32 i32", "", "Replace topic, key, value and all headers from that JSON."),
    _f("get_timestamp", "", "i64", "Timestamp in epoch milliseconds; -1 when the record has none."),
    _f("set_timestamp", "i64", "", "Set the timestamp (epoch ms); -1 removes it."),
    _f("get_partition", "", "i32", "Partition the record was read from; -1 when unknown."),
    _f("get_offset", "", "i64", "Offset the record was read at; -1 when unknown."),
    _f("get_config", "i32 i32", "i64", "Value of transforms.X.config.NAME, UTF-8; 0 when not set."),
    _f("drop_record", "", "", "Drop the record: it is not output when the function returns."),
    _f("emit_record", "", "", "Output a copy of the record as it stands now (fan-out)."),
    _f("log", "i32 i32 i32", "", "Log the UTF-8 text at (ptr, len) at a level: 0 debug, 1 info, 2 warn, 3 error."),
)

BY_NAME = {f.name: f for f in ABI_FUNCTIONS}

#: The record as JSON: on the fast path the adapter serves them by handing
#: the record's state to Python (JSON and base64 are not worth hand-written Wasm).
RECORD_JSON = frozenset({"get_record", "set_record"})

#: Functions served by Python on both paths (rare calls, not per-record work).
PYTHON_SERVED = frozenset({"log"})


def pack(ptr: int, length: int) -> int:
    """The getter result: ``(ptr << 32) | len`` as a signed i64."""
    value = ((ptr & 0xFFFFFFFF) << 32) | (length & 0xFFFFFFFF)
    return value - (1 << 64) if value >= 1 << 63 else value


def unpack(value: int) -> tuple[int, int]:
    """``(ptr, len)`` of a packed i64, len still carrying its error bit."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value >> 32, value & 0xFFFFFFFF
