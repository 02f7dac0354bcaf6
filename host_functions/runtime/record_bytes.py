"""Record columns as the bytes a guest sees, and the guest's bytes back as record columns.

Guests of the Redpanda and proxy-wasm ABIs exchange Kafka records as bytes
(key, value, headers).  Going in, the transform's converters turn each column
into bytes (no per-row work for byte-array converters over Arrow columns);
coming back, the guest's outputs become rows of the batch again, through the
same converters, with their parent's other fields.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from host_functions.kafka_wire import HEADERS_TYPE, not_utf8
from host_functions.runtime.sandbox import Settings
from smt.batch import RecordBatch
from smt.converter import load_converter
from smt.errors import ConfigError
from smt.plugin import PluginContext
from smt.transform import ErrorSink

__all__ = [
    "Converters",
    "assemble_outputs",
    "bytes_column",
    "failing_rows",
    "headers_column",
    "load_converters",
    "single",
]


@dataclasses.dataclass(frozen=True)
class Converters:
    """The transform's own converters between record parts and guest bytes."""

    key: Any
    value: Any
    header: Any


def failing_rows(
    errors: ErrorSink, settings: Settings, batch: RecordBatch
) -> tuple[set[int], Callable[[int, str], None]]:
    """``(failed, fail)``: ``fail(row, cause)`` reports a row of ``batch`` once to ``errors`` (a WasmGuestError
    naming the transform, the row and where it was read); ``failed`` holds the rows reported so far."""
    failed: set[int] = set()

    def fail(row: int, cause: str) -> None:
        if row not in failed:
            failed.add(row)
            errors.fail(row, settings.row_error(cause, batch, row))

    return failed, fail


def load_converters(config: dict[str, Any], key_prefix: str) -> Converters:
    """The transform's key, value and header converters (``key.converter`` ...), named by key in errors."""

    def load(key: str, is_key: bool):
        try:
            return load_converter(config[key], {}, is_key, context=PluginContext(None, f"{key_prefix}{key}."))
        except KeyError as exc:
            raise ConfigError.for_key(f"{key_prefix}{key}", str(exc.args[0]), config[key]) from exc

    return Converters(
        key=load("key.converter", True), value=load("value.converter", False), header=load("header.converter", False)
    )


def single(column: Any) -> pa.Array:
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def bytes_column(batch: RecordBatch, name: str, converter, converter_key: str, fail) -> pa.Array:
    """The key or value as the guest sees it: bytes from the converter (no per-row work for bytearray)."""
    if not batch.has_column(name):  # not held: null in every row
        return pa.nulls(len(batch), pa.binary())
    if getattr(converter, "passthrough", False) and batch.is_arrow(name):
        column = single(batch.arrow_column(name))
        return column if column.type == pa.binary() else column.cast(pa.binary())

    def on_error(row: int, exc: BaseException) -> None:
        fail(row, f"{converter_key} failed: {type(exc).__name__}: {exc}")

    data = converter.from_connect_batch(batch.topic, batch.column(f"{name}_schema"), batch.column(name), on_error)
    return pa.array(data, type=pa.binary())


def headers_column(batch: RecordBatch, converter, fail) -> pa.Array | None:
    if not batch.has_column("headers"):
        return None
    if getattr(converter, "passthrough", False) and batch.is_arrow("headers"):
        return single(batch.arrow_column("headers"))
    rows = []
    for row, (topic, headers) in enumerate(zip(batch.topic, batch.headers)):
        try:
            rows.append([{"key": k, "value": converter.from_connect_header(topic, k, None, v)} for k, v in headers])
        except Exception as exc:
            fail(row, f"header.converter failed: {type(exc).__name__}: {exc}")
            rows.append([])
    return pa.array(rows, type=HEADERS_TYPE)


# --- outputs ---------------------------------------------------------------------


def assemble_outputs(
    batch: RecordBatch, parents: np.ndarray, columns: dict[str, pa.Array], converters: Converters, fail
) -> RecordBatch:
    """The output rows: ``batch``'s rows ``parents`` (stable-sorted by parent) with the guest's key, value,
    headers and topic (``columns``, binary / header lists / strings, aligned with ``parents``) and any
    other column given (set as is, e.g. ``timestamp``).

    Outputs go back through the converters; an output whose header name is not UTF-8 or that a
    converter refuses fails its parent (``fail(row, cause)``), and none of that parent's outputs
    are written.
    """
    bad = _bad_header_names(columns["headers"], parents, fail)
    order = np.argsort(parents, kind="stable")  # outputs of one input stay together, in input order
    if bad:
        order = order[~np.isin(parents[order], bad)]
    if len(order) != len(parents) or (order != np.arange(len(parents))).any():
        parents = parents[order]
        columns = {name: column.take(pa.array(order)) for name, column in columns.items()}
    out = batch.take(parents)
    columns["headers"] = columns["headers"].cast(HEADERS_TYPE)
    converted_badly: set[int] = set()

    def fail_output(parent: int, cause: str) -> None:  # a converter refused an output: its record fails whole
        converted_badly.add(parent)
        fail(parent, cause)

    for name in ("key", "value"):
        _set_bytes(out, name, columns[name], getattr(converters, name), columns["topic"], fail_output, parents)
    out.set_column("topic", columns["topic"])
    _set_headers(out, columns["headers"], converters.header, fail_output, parents)
    for name in columns.keys() - {"key", "value", "headers", "topic"}:  # e.g. timestamps a guest set
        out.set_column(name, columns[name])
    if converted_badly:
        out = out.take(np.flatnonzero(~np.isin(parents, list(converted_badly))))
    return out


def _bad_header_names(headers: pa.Array, parents: np.ndarray, fail) -> list[int]:
    """Parents of outputs with a header name that is not UTF-8 (header names are strings here)."""
    names = pc.list_flatten(headers).field("key")
    try:
        names.cast(pa.string())
        return []
    except pa.ArrowInvalid:  # the error path: find them one by one
        counts = pc.list_value_length(headers).to_numpy(zero_copy_only=False)
        bad = np.unique(np.repeat(parents, counts)[not_utf8(names)]).tolist()
        for parent in bad:
            fail(parent, "the guest wrote a header name that is not UTF-8")
        return bad


def _set_bytes(
    out: RecordBatch, name: str, column: pa.Array, converter, topics: pa.Array, fail, parents: np.ndarray
) -> None:
    schema_name = f"{name}_schema"
    if getattr(converter, "passthrough", False):
        out.set_column(name, column)
        if out.has_column(schema_name):  # a written record carries bytes, no schema
            out.set_column(schema_name, [None] * len(out))
        return

    def on_error(row: int, exc: BaseException) -> None:
        fail(int(parents[row]), f"{name}.converter failed: {type(exc).__name__}: {exc}")

    schemas, values = converter.to_connect_batch(topics.to_pylist(), column.to_pylist(), on_error)
    out.set_column(name, values)
    out.set_column(schema_name, schemas if schemas is not None else [None] * len(out))


def _set_headers(out: RecordBatch, headers: pa.Array, converter, fail, parents: np.ndarray) -> None:
    if getattr(converter, "passthrough", False):
        out.set_column("headers", headers)
        return
    topics, rows, result = out.topic, headers.to_pylist(), []
    for i, row in enumerate(rows):
        try:
            result.append(
                tuple((h["key"], converter.to_connect_header(topics[i], h["key"], h["value"])[1]) for h in row)
            )
        except Exception as exc:
            fail(int(parents[i]), f"header.converter failed: {type(exc).__name__}: {exc}")
            result.append(())
    out.set_column("headers", result)
