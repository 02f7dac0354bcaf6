"""The WebAssembly binary format's outer layer: the header, sections and LEB128 numbers.

Enough of the format to walk a module's sections and to write them back: the
SDK builder rewrites a Go reactor's sections (``sdk/_wasm_start.py``) and
``smt wasm inspect`` looks for the ``name`` custom section (``inspect.py``).
"""

from __future__ import annotations

from typing import Iterator

__all__ = ["MAGIC", "WasmFormatError", "sections", "encode_section", "read_uleb", "encode_uleb"]

#: The header of a binary module: ``\0asm`` and format version 1.
MAGIC = b"\0asm\x01\0\0\0"


class WasmFormatError(ValueError):
    """The bytes are not a well-formed binary module (a section or number runs past the end)."""


def sections(module: bytes) -> Iterator[tuple[int, bytes]]:
    """(id, payload) of each section of a binary module; WasmFormatError when it is truncated."""
    position = len(MAGIC)
    while position < len(module):
        section_id = module[position]
        size, position = read_uleb(module, position + 1)
        if position + size > len(module):
            raise WasmFormatError("truncated section")
        yield section_id, module[position : position + size]
        position += size


def encode_section(section_id: int, payload: bytes) -> bytes:
    """A section as the binary format writes it: its id, its size, its payload."""
    return bytes([section_id]) + encode_uleb(len(payload)) + payload


def read_uleb(data: bytes, position: int) -> tuple[int, int]:
    """The unsigned LEB128 number at ``position`` in ``data``, and the position after it."""
    result = shift = 0
    while True:
        if position >= len(data):
            raise WasmFormatError("truncated LEB128 number")
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, position


def encode_uleb(value: int) -> bytes:
    """``value`` (not negative) as an unsigned LEB128 number."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)
