"""Batches in and out of the Redpanda adapter's body parser, shared with proxy-wasm filters.

Both guest kinds hand records back as Kafka record bodies that the adapter's
body parser (:func:`host_functions.redpanda.adapter.body_parser_wat`) writes
into output memories.  This module holds what both runners do around it:
cut the staged inputs to a memory budget (:func:`budget_chunks`), harvest the
committed outputs (:func:`harvest_outputs`) and turn them into Arrow columns
(:func:`output_bytes_column`, :func:`output_headers_column`).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa

from host_functions.redpanda import adapter as A
from host_functions.runtime.columns import binary_column

__all__ = ["Outputs", "budget_chunks", "harvest_outputs", "output_bytes_column", "output_headers_column"]


@dataclasses.dataclass
class Outputs:
    """The outputs one instance committed for one run: per-record metadata and the bytes."""

    meta: np.ndarray  # adapter.RECORD_META
    keys: np.ndarray
    values: np.ndarray
    header_meta: np.ndarray  # adapter.HEADER_META
    header_keys: np.ndarray
    header_values: np.ndarray


def harvest_outputs(word, copy) -> Outputs:
    """The committed outputs (:func:`adapter.body_parser_wat`'s memories), read with ``word(offset)`` (a
    control-block word) and ``copy(memory, nbytes)`` (the start of an output memory)."""
    records, key_bytes, value_bytes, headers, header_key_bytes, header_value_bytes = (
        word(A.C_COMMITTED + 4 * i) for i in range(6)
    )
    return Outputs(
        copy("om", records * A.RECORD_META.itemsize).view(A.RECORD_META),
        copy("ok", key_bytes),
        copy("ov", value_bytes),
        copy("hm", headers * A.HEADER_META.itemsize).view(A.HEADER_META),
        copy("hk", header_key_bytes),
        copy("hv", header_value_bytes),
    )


def budget_chunks(rows: np.ndarray, sizes: np.ndarray, budget: int) -> list[np.ndarray]:
    """``rows`` cut where their staged bytes pass ``budget`` (a row bigger than that goes alone)."""
    if not len(rows):
        return []
    cumulative = np.cumsum(sizes[rows] + 16)
    chunks, start = [], 0
    while start < len(rows):
        base = cumulative[start - 1] if start else 0
        end = max(int(np.searchsorted(cumulative, base + budget, side="right")), start + 1)
        chunks.append(rows[start:end])
        start = end
    return chunks


def output_bytes_column(meta: np.ndarray, data: np.ndarray, end_field: str, null_flag: int) -> pa.Array:
    """The keys or values of the outputs (``end_field`` of :data:`adapter.RECORD_META`); null where ``null_flag`` is set."""
    ends = meta[end_field]
    lengths = np.diff(np.concatenate([[0], ends])).astype(np.int64)
    return binary_column(np.where(meta["flags"] & null_flag, -1, lengths), data.tobytes(), pa.binary())


def output_headers_column(outputs: Outputs) -> pa.Array:
    """The headers of the outputs, as Kafka's ``array<struct<key, value>>`` (names still bytes)."""
    header_meta = outputs.header_meta
    key_lengths = np.diff(np.concatenate([[0], header_meta["key_end"]]))
    value_lengths = np.diff(np.concatenate([[0], header_meta["value_end"]]))
    keys = binary_column(key_lengths, outputs.header_keys.tobytes(), pa.binary())
    values = binary_column(
        np.where(header_meta["flags"] & 1, -1, value_lengths), outputs.header_values.tobytes(), pa.binary()
    )
    structs = pa.StructArray.from_arrays([keys, values], names=["key", "value"])
    list_offsets = np.concatenate([[0], outputs.meta["header_end"]]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(list_offsets), structs)
