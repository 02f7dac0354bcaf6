"""Kafka's record encoding, a whole Arrow column at a time.

A Kafka record (message format v2, KIP-98) carries its key, value and
headers as a *body* after its per-record metadata::

    keyLength: varint      (-1: null key)
    key: bytes
    valueLength: varint    (-1: null value)
    value: bytes
    headerCount: varint
    headers: [headerKeyLength: varint, headerKey: bytes,
              headerValueLength: varint (-1: null), headerValue: bytes]

Varints are zigzag-encoded base-128 varints, as in protobuf's ``sint64``.
Redpanda Data Transforms exchange exactly these bodies with their guests
(``read_next_record``/``write_record``), and a RecordBatch v2 holds them
after each record's length, attributes, timestamp delta and offset delta.

Everything here works on whole columns with Arrow kernels and numpy, never a
Python loop per record: encoding joins per-row pieces with
``binary_join_element_wise``; decoding parses one field of every body at a
time (a loop per field, and per header *position*, not per record).

Public API: :func:`encode_varints`, :func:`decode_varints`,
:func:`encode_record_bodies`, :func:`decode_record_bodies` (and ``_at``, for bodies inside a larger buffer),
:class:`RecordBodies` and :func:`not_utf8`.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "RecordBodies",
    "decode_record_bodies",
    "decode_record_bodies_at",
    "decode_varints",
    "encode_record_bodies",
    "encode_varints",
    "not_utf8",
    "HEADERS_TYPE",
]

#: The Kafka row layout's headers column (header names are strings; values nullable bytes).
HEADERS_TYPE = pa.list_(pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())]))

#: An int64 needs at most ten 7-bit groups.
_MAX_VARINT_BYTES = 10
_EMPTY = pa.scalar(b"", pa.binary())
#: The smallest zigzag value that needs 2, 3, ... 10 bytes.
_VARINT_LIMITS = np.array([1 << (7 * groups) for groups in range(1, _MAX_VARINT_BYTES)], dtype=np.uint64)


# --- varints -------------------------------------------------------------------


def encode_varints(values: np.ndarray) -> pa.Array:
    """One zigzag varint per value, as an Arrow ``binary`` array (row i = the bytes of ``values[i]``)."""
    values = np.asarray(values, dtype=np.int64)
    if len(values) > 1 and (values == values[0]).all():  # common: every key null, no headers, fixed-size values
        one = encode_varints(values[:1]).buffers()[2].to_pybytes()
        offsets = np.arange(len(values) + 1, dtype=np.int32) * len(one)
        data = np.tile(np.frombuffer(one, dtype=np.uint8), len(values))
        return pa.Array.from_buffers(pa.binary(), len(values), [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    zigzag = ((values << 1) ^ (values >> 63)).view(np.uint64)
    sizes = (np.searchsorted(_VARINT_LIMITS, zigzag, side="right") + 1).astype(np.int32)
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum(sizes, out=offsets[1:])
    data = np.empty(int(offsets[-1]), dtype=np.uint8)
    starts = offsets[:-1]
    for group in range(_MAX_VARINT_BYTES):
        rows = np.flatnonzero(sizes > group) if group else slice(None)
        chunk = (zigzag[rows] >> np.uint64(7 * group)) & np.uint64(0x7F)
        more = (sizes[rows] > group + 1).astype(np.uint64) << np.uint64(7)
        data[starts[rows] + group] = (chunk | more).astype(np.uint8)
        if group and not len(rows):
            break
    return pa.Array.from_buffers(pa.binary(), len(values), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def decode_varints(data: np.ndarray, positions: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The zigzag varints starting at ``positions`` in ``data``, each ending before ``ends``.

    Returns ``(values, sizes)``: int64 values and the bytes each took; a
    varint that runs past its end (or past ten bytes) gets size 0, which the
    caller treats as malformed.
    """
    positions = np.asarray(positions, dtype=np.int64)
    ends = np.asarray(ends, dtype=np.int64)
    accumulated = np.zeros(len(positions), dtype=np.uint64)
    sizes = np.zeros(len(positions), dtype=np.int64)
    open_rows = np.arange(len(positions))
    padded = np.concatenate([data, np.zeros(1, dtype=np.uint8)])  # reads at an end land on a harmless byte
    for group in range(_MAX_VARINT_BYTES):
        at = positions[open_rows] + group
        inside = at < ends[open_rows]
        open_rows, at = open_rows[inside], at[inside]
        byte = padded[at].astype(np.uint64)
        accumulated[open_rows] |= (byte & np.uint64(0x7F)) << np.uint64(7 * group)
        done = byte < 0x80
        sizes[open_rows[done]] = group + 1
        open_rows = open_rows[~done]
        if not len(open_rows):
            break
    values = (accumulated >> np.uint64(1)).view(np.int64) ^ -(accumulated & np.uint64(1)).view(np.int64)
    return values, sizes


# --- record bodies ---------------------------------------------------------------


def encode_record_bodies(keys: pa.Array, values: pa.Array, headers: pa.Array | None = None) -> pa.Array:
    """The record body of every row, as a ``binary`` array (see the module docstring).

    ``keys`` and ``values`` are binary (or string) arrays, nulls encoded as
    length -1; ``headers`` is a list of ``{key, value}`` structs
    (:data:`HEADERS_TYPE`), or None for records without headers.
    """
    n = len(values)
    pieces = [*_sized(keys), *_sized(values)]
    if isinstance(headers, pa.ChunkedArray):
        headers = headers.combine_chunks()
    counts = None if headers is None else pc.list_value_length(headers).fill_null(0).to_numpy(zero_copy_only=False)
    if counts is None or not counts.any():
        pieces.append(encode_varints(np.zeros(n, dtype=np.int64)))
    else:
        headers = headers.fill_null(pa.scalar([], headers.type)) if headers.null_count else headers
        entries = pc.list_flatten(headers)
        header_keys, header_values = entries.field("key"), entries.field("value")
        header_bodies = pc.binary_join_element_wise(
            *_sized(header_keys.cast(pa.binary())), *_sized(header_values), _EMPTY
        )
        list_offsets = np.zeros(n + 1, dtype=np.int32)
        np.cumsum(counts, out=list_offsets[1:])
        per_record = pa.ListArray.from_arrays(pa.array(list_offsets), header_bodies)
        pieces += [encode_varints(counts), pc.binary_join(per_record, _EMPTY)]
    return pc.binary_join_element_wise(*pieces, _EMPTY)


def _sized(column: pa.Array) -> tuple[pa.Array, pa.Array]:
    """A length varint (-1 for null) and the bytes (empty for null) of each row."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        column = column.cast(pa.binary())
    lengths = pc.binary_length(column).fill_null(-1).to_numpy(zero_copy_only=False)
    return encode_varints(lengths), column.fill_null(b"") if column.null_count else column


@dataclasses.dataclass
class RecordBodies:
    """Decoded record bodies: one entry per input row.

    ``bad`` marks the rows whose body is malformed, and ``reasons`` says why
    (row -> message); their key, value and headers are null / empty.
    """

    keys: pa.Array
    values: pa.Array
    headers: pa.Array
    bad: np.ndarray
    reasons: dict[int, str]


def decode_record_bodies(bodies: pa.Array) -> RecordBodies:
    """Parse every row of a ``binary`` array of record bodies (see the module docstring)."""
    if isinstance(bodies, pa.ChunkedArray):
        bodies = bodies.combine_chunks()
    n = len(bodies)
    offsets = np.frombuffer(bodies.buffers()[1], dtype=np.int32, count=n + 1, offset=bodies.offset * 4).astype(np.int64)
    data_buffer = bodies.buffers()[2]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    return decode_record_bodies_at(data, offsets[:-1], offsets[1:])


def decode_record_bodies_at(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> RecordBodies:
    """Parse the record bodies at ``data[starts[i]:ends[i]]`` (in order, not overlapping), e.g. inside a RecordBatch."""
    n = len(starts)
    parser = _BodyParser(data, np.asarray(starts, dtype=np.int64).copy(), np.asarray(ends, dtype=np.int64))
    key_start, key_len = parser.sized("key")
    value_start, value_len = parser.sized("value")
    count = parser.varint("header count")
    parser.check(count >= 0, "negative header count")
    count = np.where(parser.bad, 0, count)
    header_starts = []
    for position in range(int(count.max()) if n else 0):
        rows = np.flatnonzero((count > position) & ~parser.bad)
        header_starts.append((rows, *parser.sized("header key", rows), *parser.sized("header value", rows)))
    parser.check(parser.position == parser.ends, "bytes left over after the headers")
    bad = parser.bad.copy()
    count = np.where(bad, 0, count)
    keys = _slices(data, key_start, key_len, bad)
    values = _slices(data, value_start, value_len, bad)
    headers = _headers(data, count, header_starts, bad, parser)
    if parser.bad.sum() > bad.sum():  # a header name was not UTF-8: those records lose everything
        bad = parser.bad.copy()
        keys, values = _slices(data, key_start, key_len, bad), _slices(data, value_start, value_len, bad)
        headers = _headers(data, np.where(bad, 0, count), header_starts, bad, parser)
    return RecordBodies(keys, values, headers, bad, parser.reasons)


class _BodyParser:
    """A cursor into every body at once; rows that go wrong are marked bad, with the first reason."""

    def __init__(self, data: np.ndarray, positions: np.ndarray, ends: np.ndarray) -> None:
        self.data, self.position, self.ends = data, positions, ends
        self.bad = np.zeros(len(positions), dtype=bool)
        self.reasons: dict[int, str] = {}

    def check(self, ok: np.ndarray, reason: str, rows: np.ndarray | None = None) -> None:
        rows = np.arange(len(self.position)) if rows is None else rows
        newly = rows[~ok & ~self.bad[rows]]
        for row in newly.tolist():  # only malformed rows: a loop over failures, not records
            self.reasons[row] = reason
        self.bad[newly] = True

    def varint(self, field: str, rows: np.ndarray | None = None) -> np.ndarray:
        rows = np.arange(len(self.position)) if rows is None else rows
        value, size = decode_varints(self.data, self.position[rows], self.ends[rows])
        self.check(size > 0, f"the {field} is not a complete varint", rows)
        self.position[rows] += size
        return value

    def sized(self, field: str, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(start, length) of a length-prefixed field; length -1 is null."""
        rows = np.arange(len(self.position)) if rows is None else rows
        length = self.varint(f"{field} length", rows)
        self.check(length >= -1, f"the {field} length is negative", rows)
        start = self.position[rows].copy()
        self.check(
            start + np.maximum(length, 0) <= self.ends[rows], f"the {field} runs past the end of the record", rows
        )
        length = np.where(self.bad[rows], 0, length)
        self.position[rows] += np.maximum(length, 0)
        return start, length


_BINARY = pa.binary()


def _slices(
    data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, bad: np.ndarray, type: pa.DataType = _BINARY
) -> pa.Array:
    """A binary array of ``data[start:start+length]`` per row (length -1 or a bad row: null).

    The slices are disjoint and in order, so a mask over ``data`` picks them
    all in one pass: +1 where a slice starts, -1 where it ends, running sum.
    """
    null = (lengths < 0) | bad
    sizes = np.where(null, 0, lengths)
    marks = np.zeros(len(data) + 1, dtype=np.int8)
    nonempty = sizes > 0
    marks[starts[nonempty]] = 1
    np.subtract.at(marks, starts[nonempty] + sizes[nonempty], 1)  # an end may meet another slice's start
    picked = data[np.cumsum(marks[:-1], dtype=np.int8) > 0] if len(data) else data
    offsets = np.zeros(len(starts) + 1, dtype=np.int32)
    np.cumsum(sizes, out=offsets[1:])
    null_count = int(null.sum())
    validity = pa.py_buffer(np.packbits(~null, bitorder="little")) if null_count else None
    return pa.Array.from_buffers(type, len(starts), [validity, pa.py_buffer(offsets), pa.py_buffer(picked)], null_count)


def _headers(data: np.ndarray, count: np.ndarray, positions: list, bad: np.ndarray, parser: _BodyParser) -> pa.Array:
    """The headers column from each header position's (rows, key start/len, value start/len)."""
    total = int(count.sum())
    list_offsets = np.zeros(len(count) + 1, dtype=np.int32)
    np.cumsum(count, out=list_offsets[1:])
    if not total:
        empty = pa.array([], HEADERS_TYPE.value_type)
        return pa.ListArray.from_arrays(pa.array(list_offsets), empty, type=HEADERS_TYPE)
    # header j of row r goes to entry list_offsets[r] + j; gather each field in that order
    entry_row = np.empty(total, dtype=np.int64)
    fields = {name: np.empty(total, dtype=np.int64) for name in ("ks", "kl", "vs", "vl")}
    for position, (rows, key_start, key_len, value_start, value_len) in enumerate(positions):
        keep = ~bad[rows]
        rows = rows[keep]
        entries = list_offsets[rows] + position
        entry_row[entries] = rows
        for name, column in zip(("ks", "kl", "vs", "vl"), (key_start, key_len, value_start, value_len)):
            fields[name][entries] = column[keep]
    no_bad = np.zeros(total, dtype=bool)
    # a null header name (-1, which Redpanda accepts) reads as empty, as the Rust SDK reads it
    header_keys = _as_names(_slices(data, fields["ks"], np.maximum(fields["kl"], 0), no_bad), entry_row, parser)
    header_values = _slices(data, fields["vs"], fields["vl"], no_bad)
    structs = pa.StructArray.from_arrays([header_keys, header_values], fields=list(HEADERS_TYPE.value_type))
    return pa.ListArray.from_arrays(pa.array(list_offsets), structs, type=HEADERS_TYPE)


def _as_names(header_keys: pa.Array, entry_row: np.ndarray, parser: _BodyParser) -> pa.Array:
    """Header names as strings; a record with a name that is not UTF-8 is malformed (its names read as empty)."""
    try:
        return header_keys.cast(pa.string())
    except pa.ArrowInvalid:  # the error path only: find the culprits one by one
        valid = ~not_utf8(header_keys)
        rows = np.unique(entry_row[~valid])
        parser.check(np.zeros(len(rows), dtype=bool), "a header name is not UTF-8", rows)
        return pc.if_else(pa.array(valid), header_keys, _EMPTY).cast(pa.string())


def not_utf8(values: pa.Array) -> np.ndarray:
    """Which values of a binary array are not UTF-8 (a loop per value: for error paths only)."""

    def bad(value: bytes | None) -> bool:
        try:
            value is not None and value.decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False

    return np.array([bad(value) for value in values.to_pylist()], dtype=bool)
