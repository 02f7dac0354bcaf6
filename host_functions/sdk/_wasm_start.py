"""Turns a WASI reactor into a module that initializes itself when instantiated.

Go's ``-buildmode=c-shared`` output is a reactor: its runtime starts only when the host calls the
``_initialize`` export, and every other export traps before that.  Rather than ask every host to
know this convention, the builder rewrites the binary: ``_initialize`` becomes the module's start
function (run by any runtime during instantiation) and is no longer exported, so a host that does
follow the convention cannot run it twice.
"""

from __future__ import annotations

__all__ = ["self_initializing", "WasmRewriteError", "sections", "read_uleb"]

_MAGIC = b"\0asm\x01\0\0\0"
_EXPORT_SECTION = 7
_START_SECTION = 8
_FUNCTION_EXPORT = 0
_INITIALIZE = b"_initialize"


class WasmRewriteError(ValueError):
    """The module cannot be rewritten (not Wasm, no ``_initialize`` export, already has a start)."""


def self_initializing(module: bytes) -> bytes:
    """``module`` with its ``_initialize`` export turned into its start function.

    Raises WasmRewriteError when ``module`` is not a Wasm binary, has no ``_initialize`` function
    export, or already has a start function.
    """
    if not module.startswith(_MAGIC):
        raise WasmRewriteError("not a WebAssembly binary module")
    parts = list(sections(module))
    if any(section_id == _START_SECTION for section_id, _ in parts):
        raise WasmRewriteError("the module already has a start function")
    out = bytearray(_MAGIC)
    initialize = None
    for section_id, payload in parts:
        if section_id == _EXPORT_SECTION:
            payload, initialize = _without_initialize(payload)
        out += _section(section_id, payload)
        if section_id == _EXPORT_SECTION and initialize is not None:
            # The start section comes right after the export section in the binary's fixed order.
            out += _section(_START_SECTION, _uleb(initialize))
    if initialize is None:
        raise WasmRewriteError("the module has no '_initialize' function export")
    return bytes(out)


def sections(module: bytes):
    """(id, payload) of each section of a binary module; WasmRewriteError when it is truncated."""
    position = len(_MAGIC)
    while position < len(module):
        section_id = module[position]
        size, position = read_uleb(module, position + 1)
        if position + size > len(module):
            raise WasmRewriteError("truncated section")
        yield section_id, module[position : position + size]
        position += size


def _without_initialize(payload: bytes) -> tuple[bytes, int | None]:
    """The export section without ``_initialize``, and the function index it exported."""
    count, position = read_uleb(payload, 0)
    kept, initialize = [], None
    for _ in range(count):
        start = position
        name_length, position = read_uleb(payload, position)
        name = payload[position : position + name_length]
        kind = payload[position + name_length]
        index, position = read_uleb(payload, position + name_length + 1)
        if name == _INITIALIZE and kind == _FUNCTION_EXPORT:
            initialize = index
        else:
            kept.append(payload[start:position])
    return _uleb(len(kept)) + b"".join(kept), initialize


def _section(section_id: int, payload: bytes) -> bytes:
    return bytes([section_id]) + _uleb(len(payload)) + payload


def read_uleb(data: bytes, position: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if position >= len(data):
            raise WasmRewriteError("truncated LEB128 number")
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, position


def _uleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)
