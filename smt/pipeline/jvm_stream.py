"""The JVM streaming path: a streaming run whose records never leave the JVM.

A streaming run takes it when

- its key and value converters pass bytes through (``bytearray``, the
  defaults), so no record is decoded;
- every transform, and every predicate, has a compiled form over whole
  records (:class:`smt.compiled.CompiledRecord`: ``Filter``, ``InsertHeader``,
  ``DropHeaders``; ``HasHeaderKey``, ``RecordIsTombstone``; the reference
  lists them), or there is none;
- a record can fail nowhere but at the sink: ``errors.tolerance=none`` and
  no dead-letter queue.  A record the sink's producer refuses then fails
  the query, as it fails the Python path's run;
- the source's stream has no record it could not read (no source-error
  column), and the sink writes a stream inside the query without Python
  (:class:`smt.connector_roles.JvmStreamWrite`: the Kafka sink with
  ``writer=spark``, at least once, to its one topic).

The run is then one Spark SQL query, from the source's stream through the
chain's columns to the sink's writer: no Python worker, no Arrow crossing,
no step on the driver per micro-batch.  Its counts (read, written,
filtered, and per transform) are aggregates the query observes.  It is the
only path Spark's real-time mode (``streaming.trigger=realTime``, Spark 4.1
on) can take, since that mode runs JVM operators only; asked for a run that
cannot take it, the run is refused, naming what keeps it out.
``pipeline.compile=off`` turns the path off.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from smt.compiled import CompiledRecord, NotCompilable, compile_stage
from smt.connector import SOURCE_ERROR_COLUMN
from smt.pipeline.counts import COUNTS_COLUMN, CountsLayout
from smt.pipeline.processor import BatchCounts
from smt.row_layout import KAFKA_ROW_FIELDS

__all__ = ["header_writer", "jvm_stream", "jvm_stream_problem"]


def jvm_stream_problem(spec: Any) -> str | None:
    """Why the streaming run of ``spec`` cannot keep its records in the JVM whatever its source reads
    (None: it may; the chain and the sink are asked next, by :func:`jvm_stream`)."""
    if spec.config.get("pipeline.compile", "auto") == "off":
        return "pipeline.compile=off"
    for name, converter in (("key.converter", spec.key_converter), ("value.converter", spec.value_converter)):
        if not converter.passthrough:
            return f"{name} {type(converter).__name__} decodes each record in Python (bytearray passes bytes)"
    if spec.policy.tolerates_all:
        return "errors.tolerance=all: a failed record is skipped or dead-lettered in Python"
    return None


def jvm_stream(spec: Any, source: Any, layout: CountsLayout, observed: str) -> Any:
    """The sink's ``DataStreamWriter`` (not started) of ``spec``'s chain over ``source`` (the source's
    stream, Kafka row layout), the counts observed under the name ``observed`` (see
    :mod:`smt.pipeline.counts`); raises :class:`NotCompilable` naming the stage (or the sink) that keeps
    it out of the JVM."""
    from pyspark.sql import functions as F

    problem = jvm_stream_problem(spec)
    if problem is not None:
        raise NotCompilable(problem)
    sink = spec.sink_roles.jvm_stream_write
    if sink is None:
        raise NotCompilable(f"sink {type(spec.sink).__name__} writes its records from Python")
    problem = sink.jvm_stream_problem()
    if problem is not None:
        raise NotCompilable(f"sink: {problem}")
    if SOURCE_ERROR_COLUMN in source.columns:
        raise NotCompilable(f"source '{spec.config['source']}' reports records it could not read in Python")
    record = CompiledRecord(
        {name: F.col(f"`{name}`") for name in KAFKA_ROW_FIELDS}, header_writer(spec.header_converter)
    )
    kept_after = []
    for stage in spec.chain.stages:
        record = compile_stage(stage, record, F)
        kept_after.append(record.kept)
    # The chain's columns and each stage's kept flag side by side, named apart from the source's: the
    # counts (over the flags) are taken before the dropped records go.
    outputs = [column.alias(f"{_OUT}{name}") for name, column in record.columns.items()]
    flags = {i: f"{_KEPT}{i}" for i, kept in enumerate(kept_after) if kept is not None}
    staged = source.select(*outputs, *(kept_after[i].alias(name) for i, name in flags.items()))
    flag_columns = [F.col(flags[i]) if i in flags else None for i in range(len(kept_after))]
    records = staged.observe(observed, _counts(F, layout, flag_columns).alias(COUNTS_COLUMN))
    if record.kept is not None:
        records = records.where(flag_columns[-1])
    records = records.select(*(F.col(f"{_OUT}{name}").alias(name) for name in record.columns))
    return sink.jvm_stream_writer(records)


#: The chain's output columns, and whether each stage kept a record, until the counts are taken.
_OUT = "_smt_out_"
_KEPT = "_smt_kept_"


def _counts(F: Any, layout: CountsLayout, kept_after: list[Any]) -> Any:
    """The aggregate of one micro-batch's counts row (:meth:`CountsLayout.totals` reads it): every record
    read, those the chain kept written, the others filtered; each stage's records in and out."""
    read = F.count(F.lit(1))

    def kept_count(kept: Any) -> Any:
        return read if kept is None else F.count(F.when(kept, F.lit(1)))

    written = kept_count(kept_after[-1] if kept_after else None)
    batch = {"read": read, "written": written, "output_rows": written, "filtered": read - written}
    figures = [batch.get(field.name, F.lit(0)) for field in dataclasses.fields(BatchCounts)]
    before = None
    for kept in kept_after:
        records_in, records_out = kept_count(before), kept_count(kept)
        figures += [records_in, records_out, records_in - records_out, F.lit(0), F.lit(0)]
        before = kept
    return F.concat_ws(",", *(figure.cast("string") for figure in figures))


def header_writer(converter: Any):
    """``header_bytes`` of :class:`CompiledRecord` for the header ``converter``: what it writes for a header
    value a transform sets, or :class:`NotCompilable` naming the header where it cannot."""

    def header_bytes(key: str, value: Any) -> bytes:
        try:
            data = converter.from_connect_header(None, key, None, value)
        except Exception as exc:
            name = type(converter).class_name()
            raise NotCompilable(f"header.converter {name} cannot write header '{key}': {exc}") from None
        if not isinstance(data, (bytes, bytearray)):
            raise NotCompilable(f"header '{key}': the header converter writes no bytes for {value!r}")
        return bytes(data)

    return header_bytes
