"""The JVM streaming path: a streaming run whose records never leave the JVM.

A streaming run takes it when

- its key and value converters pass bytes through (``bytearray``, the
  defaults), or read and write them in Spark SQL
  (:class:`smt.compiled.CompiledRecordConverter`: ``json`` without schemas);
- every transform, and every predicate, has a compiled form over whole
  records (:class:`smt.compiled.CompiledRecord`: ``Filter``, ``InsertHeader``,
  ``DropHeaders``; ``MaskField$Value`` and ``InsertField$Value`` over a
  JSON object; ``HasHeaderKey``, ``RecordIsTombstone``), or there is none;
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

Where a converter reads the records, the path is a bet: the query fails on
the first record its codec cannot vouch for (read and written in Spark SQL
exactly as the converter does in Python), naming it
(:func:`unvouched_record`), and the runner goes on in Python from that
micro-batch (:func:`forget_uncommitted_batch`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from smt.compiled import CompiledRecord, CompiledRecordConverter, NotCompilable, compile_stage
from smt.connector import SOURCE_ERROR_COLUMN
from smt.pipeline.counts import COUNTS_COLUMN, CountsLayout
from smt.pipeline.processor import BatchCounts
from smt.row_layout import KAFKA_ROW_FIELDS

__all__ = [
    "UNVOUCHED",
    "ChainFrame",
    "chain_frame",
    "forget_uncommitted_batch",
    "header_writer",
    "jvm_stream",
    "jvm_stream_problem",
    "unvouched_record",
]


def jvm_stream_problem(spec: Any) -> str | None:
    """Why the streaming run of ``spec`` cannot keep its records in the JVM whatever its source reads
    (None: it may; the chain and the sink are asked next, by :func:`jvm_stream`)."""
    if spec.config.get("pipeline.compile", "auto") == "off":
        return "pipeline.compile=off"
    for name, converter in (("key.converter", spec.key_converter), ("value.converter", spec.value_converter)):
        if not converter.passthrough and not isinstance(converter, CompiledRecordConverter):
            return (
                f"{name} {type(converter).__name__} decodes each record in Python (bytearray passes bytes, "
                "json with schemas.enable=false is read in Spark SQL)"
            )
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
    chain = chain_frame(spec, source, F)
    record, kept_after, exact = chain.record, chain.kept_after, chain.exact
    # The chain's columns and each stage's kept flag side by side, named apart from the source's: the
    # counts (over the flags) are taken before the dropped records go.
    outputs = [column.alias(f"{_OUT}{name}") for name, column in record.columns.items()]
    flags = {i: f"{_KEPT}{i}" for i, kept in enumerate(kept_after) if kept is not None}
    vouched = [] if exact is None else [_vouched(F, exact).alias(_VOUCHED)]
    staged = chain.frame.select(*outputs, *(kept_after[i].alias(name) for i, name in flags.items()), *vouched)
    flag_columns = [F.col(flags[i]) if i in flags else None for i in range(len(kept_after))]
    records = staged.observe(observed, _counts(F, layout, flag_columns).alias(COUNTS_COLUMN))
    if exact is not None:  # before the chain's own filter, which would spare the records it drops
        records = records.where(F.col(_VOUCHED))
    if record.kept is not None:
        records = records.where(flag_columns[-1])
    records = records.select(*(F.col(f"{_OUT}{name}").alias(name) for name in record.columns))
    return sink.jvm_stream_writer(records)


@dataclasses.dataclass(frozen=True)
class ChainFrame:
    """A chain over a frame of Kafka rows (:func:`chain_frame`).

    ``frame``: the rows with the chain's intermediate columns beside them; ``record``: the record the
    chain writes, its columns over ``frame`` (its value written from its object where a transform
    changed it); ``kept_after``: whether each stage kept the record (None: every record); ``exact``:
    a boolean column, true where the converters read (and write) the key and value in Spark SQL
    exactly as in Python (None: they pass bytes).
    """

    frame: Any
    record: CompiledRecord
    kept_after: list[Any]
    exact: Any


def chain_frame(spec: Any, frame: Any, functions: Any, prefix: str = "_smt_") -> ChainFrame:
    """``spec``'s chain over ``frame`` (Kafka row layout); raises NotCompilable naming what has no form.
    The columns it adds are named starting with ``prefix``.

    What a stage gives is named beside the rows before the next stage reads it: a stage reads its
    input more than once (is the field there? then replace it, else append it), and Spark would
    otherwise copy the whole expression of the stages before into each read, doubling it per stage.
    """
    F = functions
    columns = {name: F.col(f"`{name}`") for name in KAFKA_ROW_FIELDS}
    codecs = {part: _codec(f"{part}.converter", converter, F) for part, converter in (
        ("key", spec.key_converter), ("value", spec.value_converter))}  # fmt: skip
    value_read = None
    if codecs["value"] is not None:  # the object transforms change (the key stays as read)
        frame = frame.withColumn(f"{prefix}value_entries", codecs["value"].parse(columns["value"]))
        value_read = codecs["value"].read(columns["value"], F.col(f"{prefix}value_entries"))
    record = CompiledRecord(
        columns, header_writer(spec.header_converter), value_object=None if value_read is None else value_read.value
    )
    kept_after = []
    for i, stage in enumerate(spec.chain.stages):
        frame, record = _named(F, frame, compile_stage(stage, record, F), record, f"{prefix}stage{i}_")
        kept_after.append(record.kept)
    record, exact = _encoded(F, record, codecs, value_read)
    return ChainFrame(frame, record, kept_after, exact)


def _named(F: Any, frame: Any, record: CompiledRecord, before: CompiledRecord, prefix: str):
    """``(frame, record)``: the columns ``record`` changed from ``before`` added to ``frame`` under names
    starting with ``prefix``, and ``record`` reading them by name."""
    added: dict[str, Any] = {}

    def name(label: str, column: Any, was: Any) -> Any:
        if column is None or column is was:
            return column
        added[prefix + label] = column
        return F.col(prefix + label)

    columns = {key: name(key, column, before.columns[key]) for key, column in record.columns.items()}
    kept = name("kept", record.kept, before.kept)
    value_object = record.value_object
    if value_object is not None:
        was = before.value_object
        entries = name("entries", value_object.entries, was.entries)
        exact = name("exact", value_object.exact, was.exact)
        value_object = dataclasses.replace(value_object, entries=entries, exact=exact)
    if added:
        frame = frame.select("*", *(column.alias(label) for label, column in added.items()))
    return frame, dataclasses.replace(record, columns=columns, kept=kept, value_object=value_object)


#: The chain's output columns, and whether each stage kept a record, until the counts are taken.
_OUT = "_smt_out_"
_KEPT = "_smt_kept_"
#: True on every record the query goes on with: it fails on the first one the JVM cannot vouch for.
_VOUCHED = "_smt_vouched"
#: What the failure of a record the JVM cannot vouch for says first (:func:`unvouched_record` finds it).
UNVOUCHED = "smt-jvm-stream: record"
_UNVOUCHED_RECORD = re.compile(re.escape(UNVOUCHED) + r" (\S+) ")


def unvouched_record(error: BaseException) -> str | None:
    """The record (``topic-partition@offset``) that failed a JVM streaming query because the JVM could
    not vouch for it, as ``error`` (or an error it was raised from) tells; None for any other failure."""
    seen: BaseException | None = error
    while seen is not None:
        found = _UNVOUCHED_RECORD.search(str(seen))
        if found:
            return found.group(1)
        seen = seen.__cause__ or seen.__context__
    return None


def forget_uncommitted_batch(spark: Any, checkpoint: str) -> int | None:
    """Remove from the query's ``checkpoint`` the plan of its last micro-batch, where it was never
    committed (the batch a record the JVM could not vouch for failed, or a killed run's last), so that
    the next query plans its first batch anew, from the last committed one's end; returns the batch's
    id (None: none to forget).

    Spark would otherwise replay the logged batch, and Spark 4.1.0 to 4.1.2's Kafka source then fails
    reporting that replay (SPARK-55271, see :mod:`smt.pipeline.streaming`), after it is written: its
    counts would be lost.  Planned anew the batch reads the same records onward (at least once).  Only
    for an at-least-once sink that does not tell batches apart by id: a sink that skips a batch id it
    wrote before would skip the records the new plan adds."""
    from smt.driver_files import driver_files

    files = driver_files(spark)
    planned = [int(name) for name in files.list_names(f"{checkpoint}/offsets") if name.isdigit()]
    committed = {int(name) for name in files.list_names(f"{checkpoint}/commits") if name.isdigit()}
    if not planned or max(planned) in committed:
        return None
    batch = max(planned)
    files.delete(f"{checkpoint}/offsets/{batch}")
    files.delete(f"{checkpoint}/offsets/.{batch}.crc")
    return batch


def _codec(name: str, converter: Any, F: Any) -> Any:
    """The compiled codec of a converter that is not a passthrough (None for bytes); raises NotCompilable."""
    if converter.passthrough:
        return None
    try:
        return converter.compiled_record_codec(F)
    except NotCompilable as exc:
        raise NotCompilable(f"{name}: {exc}") from None


def _encoded(F: Any, record: CompiledRecord, codecs: dict[str, Any], value_read: Any):
    """``(record, exact)``: the record with its key and value written by their converters (the value
    from its object where a transform changed it), and the boolean column true where they read (and
    write) both in Spark SQL exactly as in Python (None: both pass bytes)."""
    checks = []
    for part, codec in codecs.items():
        if codec is None:
            continue
        if part == "value" and record.value_object.entries is not value_read.value.entries:
            written, exact = codec.render(record.value_object.entries), value_read.exact
        else:  # no transform changed it (its entries, never named, are left out of the plan)
            written, exact = codec.rewritten(record.columns[part])
        record = record.replaced(**{part: written})
        checks.append(exact)
    if record.value_object is not None and record.value_object.exact is not None:
        checks.append(F.coalesce(record.value_object.exact, F.lit(False)))
    if not checks:
        return record, None
    exact = checks[0]
    for check in checks[1:]:
        exact = exact & check
    return record, exact


def _vouched(F: Any, exact: Any) -> Any:
    """True where ``exact``; else the query fails naming the record (:func:`unvouched_record`)."""
    where = F.concat_ws("", F.col("topic"), F.lit("-"), F.col("partition"), F.lit("@"), F.col("offset"))
    message = F.concat(
        F.lit(UNVOUCHED + " "), where, F.lit(" is not one Spark SQL reads exactly as the converters do in Python")
    )
    return F.when(exact, F.lit(True)).otherwise(F.raise_error(message))


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
