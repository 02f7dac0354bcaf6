"""Arrow columns from what the fast path stages and harvests, without per-row Python."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["binary_column", "offsets_column", "timestamp_column", "headers_column", "arrow_millis"]


def binary_column(lengths: np.ndarray, data: bytes, type: pa.DataType) -> pa.Array:
    """An Arrow binary/string array from per-row lengths (-1 = null) and concatenated bytes."""
    n = len(lengths)
    valid = lengths >= 0
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.where(valid, lengths, 0), out=offsets[1:])
    null_count = int(n - valid.sum())
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if null_count else None
    return pa.Array.from_buffers(type, n, [bitmap, pa.py_buffer(offsets), pa.py_buffer(data)], null_count)


def offsets_column(offsets: np.ndarray, data: np.ndarray, null: np.ndarray | None, type: pa.DataType) -> pa.Array:
    """An Arrow binary/string array straight from the adapter's offsets and bytes (no per-row work)."""
    n = len(offsets) - 1
    null_count = int(null.sum()) if null is not None else 0
    bitmap = pa.py_buffer(np.packbits(~null, bitorder="little")) if null_count else None
    return pa.Array.from_buffers(type, n, [bitmap, pa.py_buffer(offsets), pa.py_buffer(data)], null_count)


def timestamp_column(millis: np.ndarray, null: np.ndarray) -> pa.Array:
    micros = pa.array(millis * 1000, type=pa.int64(), mask=null if null.any() else None)
    return micros.cast(pa.timestamp("us"))


def headers_column(list_offsets: np.ndarray, key_array: pa.Array, table: np.ndarray, values: np.ndarray) -> pa.Array:
    value_array = binary_column(table["value_len"], values, pa.binary())
    structs = pa.StructArray.from_arrays([key_array, value_array], names=["key", "value"])
    return pa.ListArray.from_arrays(pa.array(list_offsets), structs)


def arrow_millis(column: Any, length: int, dtype: str) -> tuple[np.ndarray, np.ndarray | None]:
    """A fixed-width column as (values with nulls as 0, validity or None)."""
    if isinstance(column, (pa.Array, pa.ChunkedArray)):
        array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        if pa.types.is_timestamp(array.type):
            array = pc.divide(array.cast(pa.timestamp("us")).cast(pa.int64()), 1000)
        valid = None
        if array.null_count:
            valid = array.is_valid().to_numpy(zero_copy_only=False)
            array = array.fill_null(0)
        return array.to_numpy(zero_copy_only=False).astype(dtype), valid
    values = list(column) if column is not None else [None] * length
    if values.count(None) == length:
        return np.zeros(length, dtype=dtype), np.zeros(length, dtype=bool)
    valid_list = [v is not None for v in values]
    array = np.array([0 if v is None else v for v in values], dtype=dtype)
    return array, (None if all(valid_list) else np.array(valid_list, dtype=bool))
