"""Reading the lines of a piece of a text file as Arrow binary arrays, without a Python call per line.

A piece ``[start, end)`` of a file owns every line whose first byte lies in
it, as Hadoop's line reader does: a piece that starts inside a line leaves
that line to the piece before it, and the last line it owns may run past
``end``.  Lines end with ``\\n`` or ``\\r\\n``; neither is part of the value.
A last line without a line break is still a line; an empty file has none.
Bytes are kept as they are (no UTF-8 decoding, so nothing is replaced).
"""

from __future__ import annotations

from typing import BinaryIO, Iterator

import numpy as np
import pyarrow as pa

__all__ = ["line_number", "read_lines"]

#: Bytes read per chunk: big enough to amortise the per-chunk work, small enough to stay in cache-friendly sizes.
CHUNK_BYTES = 8 * 1024 * 1024

_NEWLINE = 0x0A
_CARRIAGE_RETURN = 0x0D


def read_lines(path: str, start: int, end: int, chunk_bytes: int = CHUNK_BYTES) -> Iterator[pa.BinaryArray]:
    """The lines that ``[start, end)`` of ``path`` owns, as binary arrays (one per chunk read)."""
    with open(path, "rb") as handle:
        position = _first_line_start(handle, start, chunk_bytes)
        if position is None:
            return
        handle.seek(position)
        yield from _owned_lines(handle, position, end, chunk_bytes)


def line_number(path: str, start: int, index: int, chunk_bytes: int = CHUNK_BYTES) -> int:
    """The 1-based line number in ``path`` of the ``index``-th line (0-based) that the piece from ``start`` owns.

    Reads the file up to that piece: for error messages only.
    """
    with open(path, "rb") as handle:
        first = _first_line_start(handle, start, chunk_bytes) or 0
        handle.seek(0)
        before, remaining = 0, first
        while remaining > 0:
            data = handle.read(min(chunk_bytes, remaining))
            if not data:
                break
            before += data.count(b"\n")
            remaining -= len(data)
    return before + index + 1


def _first_line_start(handle: BinaryIO, start: int, chunk_bytes: int) -> int | None:
    """Where the first line beginning at or after ``start`` begins; ``None`` when none does."""
    if start == 0:
        return 0
    handle.seek(start - 1)
    position = start - 1
    while True:
        data = handle.read(chunk_bytes)
        if not data:
            return None
        found = data.find(b"\n")
        if found >= 0:
            return position + found + 1
        position += len(data)


def _owned_lines(handle: BinaryIO, position: int, end: int, chunk_bytes: int) -> Iterator[pa.BinaryArray]:
    carry = b""  # the start of a line whose end is not read yet
    while position < end:
        data = handle.read(chunk_bytes)
        if not data:
            if carry:
                yield _split_lines(carry + b"\n", None)
            return
        buffer = carry + data if carry else data
        text = np.frombuffer(buffer, dtype=np.uint8)
        ends = np.flatnonzero(text == _NEWLINE)
        if len(ends) == 0:
            carry = buffer
            continue
        starts = np.concatenate(([0], ends[:-1] + 1))
        owned = int(np.searchsorted(starts, end - position, side="left"))
        if owned:
            yield _split_lines(buffer, ends[:owned], starts[:owned], text)
        if owned < len(ends):
            return  # the next line starts at or past `end`: the next piece's
        consumed = int(ends[-1]) + 1
        carry = buffer[consumed:]
        position += consumed


def _split_lines(
    buffer: bytes, ends: np.ndarray | None, starts: np.ndarray | None = None, text: np.ndarray | None = None
) -> pa.BinaryArray:
    """The lines of ``buffer`` ending at the newline positions ``ends`` (all newlines when ``None``)."""
    if text is None:
        text = np.frombuffer(buffer, dtype=np.uint8)
    if ends is None:
        ends = np.flatnonzero(text == _NEWLINE)
    if starts is None:
        starts = np.concatenate(([0], ends[:-1] + 1))
    # Lines lie back to back, so the bytes that are not line content are
    # exactly the line breaks: each "\n", and a "\r" right before it.
    has_return = (ends > starts) & (text[np.maximum(ends - 1, 0)] == _CARRIAGE_RETURN)
    stops = ends - has_return
    offsets = np.zeros(len(ends) + 1, dtype=np.int64)
    np.cumsum(stops - starts, out=offsets[1:])
    if offsets[-1] >= 2**31:
        raise ValueError("a line of more than 2 GiB")
    content = np.ones(int(ends[-1]) + 1, dtype=bool)
    content[ends] = False
    content[ends[has_return] - 1] = False
    data = text[: len(content)][content]
    return pa.Array.from_buffers(
        pa.binary(), len(ends), [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)]
    )
