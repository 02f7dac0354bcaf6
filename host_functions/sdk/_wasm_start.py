"""Turns a WASI reactor into a module that initializes itself when instantiated.

Go's ``-buildmode=c-shared`` output is a reactor: its runtime starts only when the host calls the
``_initialize`` export, and every other export traps before that.  Rather than ask every host to
know this convention, the builder rewrites the binary: ``_initialize`` becomes the module's start
function (run by any runtime during instantiation) and is no longer exported, so a host that does
follow the convention cannot run it twice.
"""

from __future__ import annotations

from host_functions.wasm_sections import MAGIC, WasmFormatError, encode_section, encode_uleb, read_uleb, sections

__all__ = ["self_initializing", "WasmRewriteError"]

_EXPORT_SECTION = 7
_START_SECTION = 8
_FUNCTION_EXPORT = 0
_INITIALIZE = b"_initialize"


class WasmRewriteError(ValueError):
    """The module cannot be rewritten (not Wasm, truncated, no ``_initialize`` export, already has a start)."""


def self_initializing(module: bytes) -> bytes:
    """``module`` with its ``_initialize`` export turned into its start function.

    Raises WasmRewriteError when ``module`` is not a Wasm binary, is truncated, has no
    ``_initialize`` function export, or already has a start function.
    """
    try:
        return _with_start_function(module)
    except WasmFormatError as exc:  # the builder reports one kind of error for a module it cannot rewrite
        raise WasmRewriteError(str(exc)) from exc


def _with_start_function(module: bytes) -> bytes:
    if not module.startswith(MAGIC):
        raise WasmRewriteError("not a WebAssembly binary module")
    parts = list(sections(module))
    if any(section_id == _START_SECTION for section_id, _ in parts):
        raise WasmRewriteError("the module already has a start function")
    out = bytearray(MAGIC)
    initialize = None
    for section_id, payload in parts:
        if section_id == _EXPORT_SECTION:
            payload, initialize = _without_initialize(payload)
        out += encode_section(section_id, payload)
        if section_id == _EXPORT_SECTION and initialize is not None:
            # The start section comes right after the export section in the binary's fixed order.
            out += encode_section(_START_SECTION, encode_uleb(initialize))
    if initialize is None:
        raise WasmRewriteError("the module has no '_initialize' function export")
    return bytes(out)


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
    return encode_uleb(len(kept)) + b"".join(kept), initialize
