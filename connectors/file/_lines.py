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

__all__ = ["MAX_LINE_BYTES", "LineTooLongError", "line_number", "read_lines"]

#: Bytes read per chunk: big enough to amortise the per-chunk work, small enough to stay in cache-friendly sizes.
CHUNK_BYTES = 8 * 1024 * 1024
#: The longest line read by default (``source.line.max.bytes``): one record is never this big in Kafka.
MAX_LINE_BYTES = 256 * 1024 * 1024


class LineTooLongError(ValueError):
    """A line runs past the longest a record may be; the message names the file, the line and the setting."""


_NEWLINE = 0x0A
_CARRIAGE_RETURN = 0x0D


def read_lines(
    path: str, start: int, end: int, chunk_bytes: int = CHUNK_BYTES, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[pa.BinaryArray]:
    """The lines that ``[start, end)`` of ``path`` owns, as binary arrays (one per chunk read).

    Raises :class:`LineTooLongError` as soon as a line has run past ``max_line_bytes`` (the bytes read so
    far, not the whole line: a line of gigabytes fails after that many bytes, not after reading it all).
    """
    with open(path, "rb") as handle:
        position = _first_line_start(handle, start, chunk_bytes)
        if position is None:
            return
        handle.seek(position)
        owned = 0
        try:
            for lines in _owned_lines(handle, position, end, chunk_bytes, max_line_bytes):
                owned += len(lines)
                yield lines
        except _LongLine as long_line:
            number = line_number(path, start, owned + long_line.index, chunk_bytes)
            raise LineTooLongError(
                f"{path}: line {number:,} is longer than {max_line_bytes:,} bytes (source.line.max.bytes); "
                "raise the setting if such records are meant"
            ) from None


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


class _LongLine(Exception):
    """A line ran past the bound: the ``index``-th of those the piece has yet to yield (the caller names it)."""

    def __init__(self, index: int = 0) -> None:
        super().__init__(index)
        self.index = index


def _owned_lines(
    handle: BinaryIO, position: int, end: int, chunk_bytes: int, max_line_bytes: int
) -> Iterator[pa.BinaryArray]:
    carry = b""  # the start of a line whose end is not read yet
    pieces: list[bytes] = []  # more of that line, a chunk each: joined once its end is read, copied once
    while position < end:
        data = handle.read(chunk_bytes)
        if not data:
            if carry or pieces:
                yield _split_lines(b"".join([carry, *pieces, b"\n"]), None)
            return
        if data.find(b"\n") < 0:
            pieces.append(data)
            if len(carry) + sum(map(len, pieces)) > max_line_bytes:
                raise _LongLine()
            continue
        buffer = b"".join([carry, *pieces, data]) if carry or pieces else data
        pieces = []
        text = np.frombuffer(buffer, dtype=np.uint8)
        ends = np.flatnonzero(text == _NEWLINE)
        starts = np.concatenate(([0], ends[:-1] + 1))
        too_long = np.flatnonzero(ends - starts > max_line_bytes)
        owned = int(np.searchsorted(starts, end - position, side="left"))
        if len(too_long) and too_long[0] < owned:
            raise _LongLine(int(too_long[0]))
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
