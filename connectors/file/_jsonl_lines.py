"""Parsing ``jsonl`` lines into Kafka-layout batches, each malformed line failing alone.

The lines of a batch are parsed together by Arrow's JSON reader (native code,
no Python call per line).  Whatever makes a line unreadable fails that line
alone: the batch then holds it as a record whose value is the line as read,
marked with a message in :data:`SOURCE_ERROR_COLUMN` naming the file and the
line number, so the pipeline fails it at TASK_POLL (``errors.tolerance``
decides: stop, skip or dead-letter).  A line is malformed when:

- it is not one JSON object (not JSON, cut short, an array, a scalar, two
  objects on one line), or is not valid UTF-8;
- a field has the wrong type (``"partition": "3"``), an integer is out of
  range, or a timestamp lies outside years 1-9999;
- a ``*_base64`` field is not valid base64, or a field comes in both forms
  (``value`` and ``value_base64``);
- a header is ``null`` or has no ``key``;
- it has none of ``topic``, ``key``, ``value``, ``headers`` (a line of some
  other JSON file: such a file is read with ``format=text`` and a JSON
  converter).

Blank lines are not records and are skipped (they still count for line
numbers).  Fields the layout does not know are ignored.  When one parse of
the whole batch fails, halves are parsed until the bad lines are found:
Python runs per line only for lines that fail.
"""

from __future__ import annotations

import binascii
import io
import re
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from connectors.read_tasks import constant_strings
from smt.batch import KAFKA_ARROW_SCHEMA

__all__ = ["JSONL_ARROW_SCHEMA", "parse_jsonl_lines"]

#: One line, as Arrow's JSON reader is told to read it.
JSONL_ARROW_SCHEMA = pa.schema(
    [
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("offset", pa.int64()),
        ("timestamp", pa.int64()),
        ("timestampType", pa.int32()),
        ("key", pa.string()),
        ("key_base64", pa.string()),
        ("value", pa.string()),
        ("value_base64", pa.string()),
        ("headers", pa.list_(pa.struct([("key", pa.string()), ("value", pa.string()), ("value_base64", pa.string())]))),
    ]
)

_HEADERS_TYPE = KAFKA_ARROW_SCHEMA.field("headers").type
_RECORD_FIELDS = ("topic", "key", "key_base64", "value", "value_base64", "headers")
_NOT_A_RECORD = (
    "line has none of topic/key/value/headers: is this a file of values? "
    "use source.format=text with value.converter=json"
)
#: Epoch milliseconds of 0001-01-01 and 9999-12-31T23:59:59.999, the range of Spark timestamps.
_MIN_MILLIS, _MAX_MILLIS = -62135596800000, 253402300799999
_WHITESPACE = np.array([0x20, 0x09, 0x0D], dtype=np.uint8)

#: ``line_number(i)``: the 1-based number in its file of the ``i``-th line given; ``None`` when unknown.
LineNumbers = Callable[[int], "int | None"]


def parse_jsonl_lines(
    lines: pa.BinaryArray, topic: str, where: str | pa.Array, line_number: LineNumbers, error_column: str
) -> pa.RecordBatch:
    """The records of ``lines`` (blank ones skipped) in Kafka row layout, plus ``error_column``.

    ``topic`` is given to records without one; ``where`` names the file of
    every line (a string) or of each line (a string array).
    """
    problems: dict[int, str] = {}  # row of `lines` -> what is wrong with it
    rows = _non_blank(lines, problems)
    _find_invalid_utf8(lines, problems)
    candidates = _without(rows, problems)
    table = _parse(lines, candidates, problems)
    values = _Columns(table, _without(candidates, problems))
    values.check(problems)
    return _assemble(lines, rows, values, problems, topic, where, line_number, error_column)


def _without(rows: np.ndarray, problems: dict[int, str]) -> np.ndarray:
    return rows[~np.isin(rows, np.fromiter(problems, np.int64, len(problems)))] if problems else rows


# --- finding the lines that parse -----------------------------------------------------


def _non_blank(lines: pa.BinaryArray, problems: dict[int, str]) -> np.ndarray:
    """The rows that are not blank; those that cannot be one JSON object go into ``problems``."""
    offsets = np.frombuffer(lines.buffers()[1], np.int32, len(lines) + 1, lines.offset * 4)
    data = lines.buffers()[2]
    text = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    starts, ends = offsets[:-1], offsets[1:]
    first = _first_solid(text, starts, ends)
    rows = np.flatnonzero(np.asarray(lines.is_valid(), dtype=bool) & (first < ends))
    # Only what starts as an object reaches Arrow's reader: a line that is JSON null
    # crashes it (pyarrow 26), and a scalar or an array is no record anyway.
    is_object = text[first[rows]] == ord("{")
    for row in rows[~is_object]:
        problems[int(row)] = "not a JSON object"
    return rows


def _first_solid(text: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Each line's first byte that is not a blank, or its end when it has none.

    Only the lines that start with a blank are searched further: an index of every solid byte of the
    batch would take eight bytes per byte of the lines.
    """
    first = starts.astype(np.int64)
    filled = np.flatnonzero(starts < ends)
    for row in filled[np.isin(text[starts[filled]], _WHITESPACE)]:
        solid = np.flatnonzero(~np.isin(text[starts[row] : ends[row]], _WHITESPACE))
        first[row] = starts[row] + solid[0] if len(solid) else ends[row]
    return first


def _find_invalid_utf8(lines: pa.BinaryArray, problems: dict[int, str]) -> None:
    """Lines that are not UTF-8 (Arrow's JSON reader would let their strings through unchecked)."""
    try:
        lines.cast(pa.string())  # one native check of the whole batch
        return
    except pa.ArrowInvalid:
        pass
    for row, line in enumerate(lines.to_pylist()):  # Python per line only in a batch that has such a line
        try:
            if line is not None:
                line.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.setdefault(row, f"not valid UTF-8 (byte {exc.start})")


def _parse(lines: pa.BinaryArray, rows: np.ndarray, problems: dict[int, str]) -> pa.Table:
    """The parsed ``rows`` that parse, in order; the others go into ``problems``."""
    if not len(rows):
        return JSONL_ARROW_SCHEMA.empty_table()
    try:
        table = _read_json(lines, rows)
        if table.num_rows == len(rows):
            return table
        reason = "more than one JSON value on the line"
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        reason = _reason(exc)
    if len(rows) == 1:
        problems[int(rows[0])] = reason
        return JSONL_ARROW_SCHEMA.empty_table()
    middle = len(rows) // 2
    halves = [_parse(lines, rows[:middle], problems), _parse(lines, rows[middle:], problems)]
    return pa.concat_tables(halves)


def _read_json(lines: pa.BinaryArray, rows: np.ndarray) -> pa.Table:
    document = _joined(lines.take(pa.array(rows, pa.int64())))
    options = pj.ReadOptions(use_threads=False, block_size=max(len(document), 1 << 16))
    parse = pj.ParseOptions(explicit_schema=JSONL_ARROW_SCHEMA, unexpected_field_behavior="ignore")
    return pj.read_json(io.BytesIO(document), read_options=options, parse_options=parse).combine_chunks()


def _joined(lines: pa.BinaryArray) -> bytes:
    """The lines (none null), each followed by ``\\n``, in one buffer (Arrow's join, no Python per line).

    Arrow's element-wise join, not a numpy scatter of every byte: the scatter's index arrays take eight
    bytes per byte of the lines, and cost a second per 10,000 lines of Debezium's 2 kB change events.
    """
    if not len(lines):
        return b""
    newline = pa.scalar(b"\n", pa.binary())
    joined = pc.binary_join_element_wise(lines, pa.scalar(b"", pa.binary()), newline)  # line + "\n" + ""
    offsets = np.frombuffer(joined.buffers()[1], np.int32, len(joined) + 1, joined.offset * 4)
    return joined.buffers()[2].slice(offsets[0], offsets[-1] - offsets[0]).to_pybytes()


_CHANGED_TYPE = re.compile(r"Column\(/?([^)]*)\) changed from (\w+) to (\w+)")
_OUT_OF_RANGE = re.compile(r"Failed to convert JSON to (\w+), couldn't parse:(.*)")


def _reason(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "not valid UTF-8"
    text = re.sub(r"^JSON parse error: ", "", str(exc).strip()).split(" in row ")[0].rstrip(".")
    out_of_range = _OUT_OF_RANGE.search(text)
    if out_of_range:
        return f"{out_of_range.group(2)} is not an {out_of_range.group(1)}"
    changed = _CHANGED_TYPE.search(text)
    if changed:
        field, expected, found = changed.groups()
        if not field:
            return f"not a JSON object (a {found})"
        return f"'{field.replace('/[]/', '[].')}' must be a {expected}, not a {found}"
    return text


# --- the fields of the lines that parsed -----------------------------------------------


class _Columns:
    """The parsed lines' fields in Kafka row types, and what is wrong with any of them."""

    def __init__(self, table: pa.Table, rows: np.ndarray) -> None:
        self.columns = {name: table.column(name).combine_chunks() for name in table.column_names}
        self.rows = rows
        self.problems: dict[int, str] = {}
        self.key = self._bytes("key")
        self.value = self._bytes("value")
        self.headers = self._headers()
        self.timestamp = self._timestamp()

    def check(self, problems: dict[int, str]) -> None:
        """Add this batch's problems (by line row) to ``problems``."""
        present = [pc.is_valid(self.columns[name]) for name in _RECORD_FIELDS]
        anything = present[0]
        for mask in present[1:]:
            anything = pc.or_(anything, mask)
        for index in np.flatnonzero(~_mask(anything)):
            self.problems.setdefault(int(index), _NOT_A_RECORD)
        for index, reason in self.problems.items():
            problems[int(self.rows[index])] = reason

    def _bytes(self, name: str) -> pa.Array:
        return _text_or_base64(self.columns[name], self.columns[f"{name}_base64"], name, self.problems)

    def _headers(self) -> pa.Array:
        headers = self.columns["headers"]
        offsets = np.asarray(headers.offsets)
        offsets = offsets - offsets[0]
        entries = headers.flatten()
        owner = np.repeat(np.arange(len(headers)), np.diff(offsets))  # the row of each header
        missing = _mask(pc.or_(entries.is_null(), pc.is_null(entries.field("key"))))
        for entry in np.flatnonzero(missing):
            self.problems.setdefault(int(owner[entry]), f"header {entry - offsets[owner[entry]] + 1} has no key")
        entry_problems: dict[int, str] = {}
        values = _text_or_base64(entries.field("value"), entries.field("value_base64"), "header value", entry_problems)
        for entry, reason in entry_problems.items():
            self.problems.setdefault(int(owner[entry]), reason)
        structs = pa.StructArray.from_arrays([entries.field("key"), values], fields=list(_HEADERS_TYPE.value_type))
        return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), structs, type=_HEADERS_TYPE)

    def _timestamp(self) -> pa.Array:
        millis = self.columns["timestamp"]
        valid = _mask(millis.is_valid())
        filled = pc.fill_null(millis, 0).to_numpy(zero_copy_only=False)
        outside = valid & ((filled < _MIN_MILLIS) | (filled > _MAX_MILLIS))
        for index in np.flatnonzero(outside):
            self.problems.setdefault(int(index), f"timestamp {filled[index]} is outside years 1-9999")
        micros = np.where(outside, 0, filled) * 1000
        return pa.array(micros, pa.int64(), mask=~valid).cast(pa.timestamp("us"))


def _text_or_base64(text: pa.Array, encoded: pa.Array, name: str, problems: dict[int, str]) -> pa.Array:
    """Bytes from a UTF-8 field or its ``_base64`` twin; a bad or doubled one is a problem."""
    as_bytes = text.cast(pa.binary())
    if encoded.null_count == len(encoded):
        return as_bytes
    for index in np.flatnonzero(_mask(pc.and_(text.is_valid(), encoded.is_valid()))):
        problems.setdefault(int(index), f"has both {name} and {name}_base64")
    decoded: list[bytes | None] = [None] * len(encoded)
    for index in np.flatnonzero(_mask(encoded.is_valid())):  # Python only where base64 is used
        try:
            decoded[index] = binascii.a2b_base64(encoded[int(index)].as_py(), strict_mode=True)
        except (binascii.Error, ValueError) as exc:
            problems.setdefault(int(index), f"{name}_base64 is not valid base64 ({exc})")
    return pc.coalesce(pa.array(decoded, pa.binary()), as_bytes)


def _mask(booleans: pa.Array) -> np.ndarray:
    return np.asarray(booleans.to_numpy(zero_copy_only=False), dtype=bool)


# --- the batch -------------------------------------------------------------------------


def _assemble(lines, rows, values: _Columns, problems, topic, where, line_number, error_column) -> pa.RecordBatch:
    """Output rows for ``rows``: parsed records, or the line as read with its error message."""
    failed = np.isin(rows, np.fromiter(problems, np.int64, len(problems)))
    position = np.searchsorted(values.rows, rows)  # in the parsed table (meaningless where failed)
    pick = pa.array(np.where(failed, 0, position), pa.int64(), mask=failed)
    raw = lines.take(pa.array(rows, pa.int64())).cast(pa.binary())
    columns = values.columns
    arrays = {
        "key": values.key.take(pick),
        "value": pc.if_else(pa.array(failed), raw, values.value.take(pick)),
        "topic": pc.coalesce(columns["topic"].take(pick), constant_strings(topic, len(rows))),
        "partition": columns["partition"].take(pick),
        "offset": columns["offset"].take(pick),
        "timestamp": values.timestamp.take(pick),
        "timestampType": pc.coalesce(columns["timestampType"].take(pick), pa.scalar(0, pa.int32())),
        "headers": _empty_where_null(values.headers.take(pick)),
    }
    batch = pa.RecordBatch.from_arrays([arrays[field.name] for field in KAFKA_ARROW_SCHEMA], schema=KAFKA_ARROW_SCHEMA)
    return batch.append_column(error_column, _messages(rows, failed, problems, where, line_number))


def _messages(rows, failed, problems, where, line_number) -> pa.Array:
    if not failed.any():
        return pa.nulls(len(rows), pa.string())
    messages: list[str | None] = [None] * len(rows)
    for position in np.flatnonzero(failed):
        row = int(rows[position])
        messages[position] = _message(row, problems[row], where, line_number)
    return pa.array(messages, pa.string())


def _empty_where_null(headers: pa.Array) -> pa.Array:
    """Null header lists as empty ones (Spark moves a null ``array<struct>`` many times slower)."""
    if headers.null_count == 0:
        return headers
    lengths = pc.fill_null(pc.list_value_length(headers), 0).to_numpy(zero_copy_only=False)
    offsets = np.zeros(len(headers) + 1, np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), headers.flatten(), type=_HEADERS_TYPE)


def _message(row: int, reason: str, where, line_number: LineNumbers) -> str:
    file = where if isinstance(where, str) else where[row].as_py()
    number = line_number(row)
    place = f"line {number} of {file}" if number is not None else f"a line of {file}"
    return f"malformed jsonl: {place}: {reason}"
