"""The optional roles of a connector, beyond the core of :mod:`smt.connector`.

A sink that writes with :meth:`smt.connector.Sink.write` alone is complete.
A sink that can do more says so by implementing one of these
:class:`typing.Protocol` classes (subclassing one inherits its defaults, so a sink
defines only the methods it needs).  The pipeline resolves them **once**, when
the plan is built (:func:`sink_roles`, :func:`source_roles`), into frozen
objects the rest of it reads; nothing else asks a connector what it can do.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pyarrow as pa
    from pyspark.sql import DataFrame
    from pyspark.sql.streaming import DataStreamWriter


__all__ = ["CompiledInput", "CompiledSource", "JvmStreamWrite", "RecordChecks", "SinkRoles", "SourceRoles"]
__all__ += ["StreamWrite", "TaskWrite", "TaskWriter", "ValueEncoding"]
__all__ += ["sink_roles", "source_roles"]


class RecordChecks(Protocol):
    """A sink that names the records it cannot write: they fail alone at the TASK_PUT stage.

    The pipeline calls these on the executors for every batch, in this order,
    before it writes: :meth:`value_errors`, (the value converter or
    :class:`ValueEncoding`), :meth:`prepare_records`, :meth:`record_errors`.
    Each record named fails through the error policy (``errors.tolerance=none``
    stops the run naming it; ``all`` sends the input record to the dead-letter
    queue), as Kafka Connect's ``ErrantRecordReporter`` lets a sink task do.
    """

    def value_errors(
        self, topics: "list[str | None]", schemas: "list | None", values: list
    ) -> Iterable[tuple[int, BaseException]]:
        """The records refused by their transformed data, before the value converter encodes them,
        as ``(row, error)`` pairs: ``values`` are Connect data, ``schemas`` their Connect schemas
        (``None`` when no value has one).  The lists must not be changed.  The default finds none."""
        return ()

    def prepare_records(self, records: "pa.RecordBatch", routed: "np.ndarray") -> "pa.RecordBatch":
        """The records as the sink will write them: ``routed`` holds one bool per row, True when the
        chain changed the record's topic.  Must keep the rows and their order.  The default keeps them."""
        return records

    def record_errors(self, records: "pa.RecordBatch") -> Iterable[tuple[int, BaseException]]:
        """The serialized records (the :meth:`~smt.connector.Sink.output_fields` columns) the sink
        cannot write, as ``(row, error)`` pairs; checks whole columns (it runs for every batch).
        The default finds none."""
        return ()


class ValueEncoding(Protocol):
    """A sink that writes the records' data rather than their bytes, and encodes the values itself."""

    def encode_values(self, topics: "list[str | None]", schemas: "list | None", values: list) -> "pa.Array | None":
        """The values of one batch, in place of the value converter, as a binary Arrow array the sink
        reads back in ``write`` (``None``: let the converter encode them).  Called on the executors
        after :meth:`RecordChecks.value_errors`; it must not fail on a value that let through.
        Dead letters keep the input record's bytes."""
        ...


class CompiledInput(Protocol):
    """A sink that can write the rows of the pipeline's compiled path (:mod:`smt.compiled`).

    In a batch run that takes the compiled path, the DataFrame :meth:`smt.connector.Sink.write` is
    given holds both halves: the Python path's records (Kafka row layout) and the compiled rows, told
    apart by the columns ``<prefix><i>`` (:data:`smt.compiled.COMPILED_VALUE_PREFIX`) (each a struct of
    :meth:`compiled_type`, null on the other rows) and :data:`smt.compiled.TYPE_KNOWN_COLUMN`, with
    the compiled rows' keys in :data:`smt.compiled.COMPILED_KEY_COLUMN` where the plan read them.
    A write without those columns has no compiled rows.  The dead letters never carry them.  A sink
    that takes no split write (:meth:`compiled_may_split`) gets either no compiled rows or nothing else.
    """

    def compiled_problem(self, schema: Any, key_schema: Any = None) -> str | None:
        """Why values of this Connect ``schema``, with keys of ``key_schema`` (None: the keys stay bytes),
        cannot be written from columns (``None``: they can; ``schema`` None asks about the sink as
        configured)."""
        ...

    def compiled_may_split(self) -> bool:
        """Whether one write may hold compiled rows and the Python path's records together."""
        ...

    def compiled_write_aborts_cleanly(self) -> bool:
        """Whether a failed write leaves the output as it was (the plan may then bet on every record)."""
        ...

    def compiled_type(self, schema: Any) -> Any:
        """The Spark struct type the sink writes values of the Connect struct ``schema`` as: the compiled
        rows of that schema reach :meth:`~smt.connector.Sink.write` as a struct column of it."""
        ...


class StreamWrite(Protocol):
    """A sink that writes a streaming run's records inside the streaming query itself.

    Otherwise each micro-batch is handed to the sink on the driver
    (``foreachBatch``: :meth:`~smt.connector.Sink.write` or
    ``write_with_dead_letters``), which plans and runs a second query per
    micro-batch: tens to hundreds of milliseconds of latency on every record.
    """

    def stream_writer(self, df: "DataFrame", dead_letters: Any, flag: "str | None") -> "DataStreamWriter | None":
        """``df.writeStream`` (or a stream derived from ``df``) set to write its records as the query runs,
        not started; or ``None`` when this run needs the driver for each micro-batch.

        ``df`` holds the records and, with a dead-letter queue (``dead_letters``), the dead letters,
        told apart by the boolean column ``flag`` as in ``write_with_dead_letters``; without one,
        ``flag`` and ``dead_letters`` are None and ``df`` holds only records.  Called once, on the
        driver, before the query starts; may check the destination (and raise as ``write`` does).
        """
        ...

    def stream_failure(self, error: BaseException) -> "BaseException | None":
        """The error to report when the query that :meth:`stream_writer` started failed (as ``write``
        would have raised it), or None for the pipeline's own account of ``error``."""
        ...


class JvmStreamWrite(Protocol):
    """A streaming sink that writes records inside the query without Python: the JVM streaming path
    (:mod:`smt.pipeline.jvm_stream`), where the records never meet its Python record checks."""

    def jvm_stream_problem(self) -> "str | None":
        """Why this sink, as configured, cannot write a stream without Python (None: it can)."""
        ...

    def jvm_stream_writer(self, records: "DataFrame") -> "DataStreamWriter":
        """``records`` (Kafka row layout: what the chain kept; no transform routed them) set to be written
        as the query runs, not started: :meth:`StreamWrite.stream_writer`, after what the
        sink's record checks do to a record in Python done in Spark SQL.  Called once, on the driver,
        when :meth:`jvm_stream_problem` found none; may check the destination (and raise as ``write``)."""
        ...


class TaskWrite(StreamWrite, Protocol):
    """A streaming sink whose Python writer runs in the chain's own Spark task.

    Each task hands the batches the chain outputs straight to the writer, in
    the same Python worker: without this, the written DataFrame goes back to
    the JVM and into a second Python step per task (another Arrow round trip
    and worker call), which measured as much as the rest of a micro-batch's
    latency.  Preferred over :meth:`StreamWrite.stream_writer` when it gives a
    writer; its query's failures are described by ``stream_failure``.
    """

    def task_writer(self, spark: Any, dead_letters: Any, flag: "str | None") -> "TaskWriter | None":
        """How the chain's tasks write what they output, or None when this run cannot write so.

        Called once, on the driver, before the query starts; may check the destination (and raise as
        ``write`` does).  With a dead-letter queue (``dead_letters``) the writer is given the dead letters
        too, told apart by the boolean column ``flag`` as in ``write_with_dead_letters``; without one,
        records only (``flag`` None).
        """
        ...


@dataclasses.dataclass(frozen=True)
class TaskWriter:
    """What :meth:`TaskWrite.task_writer` gives."""

    #: Writes one task's batches (picklable): it is given an iterator over the chain's output batches,
    #: must consume it all, and returns once every record is durably written, or raises (Spark retries
    #: the task).
    write: "Callable[[Iterator[pa.RecordBatch]], None]"
    #: The source's records spread over the tasks that write them, before the chain (given the source's
    #: DataFrame, returns the one the chain runs over); None: each task writes what it read.
    deal: "Callable[[DataFrame], DataFrame] | None" = None


class CompiledSource(Protocol):
    """A source whose records Spark may read itself for the compiled path (:mod:`smt.compiled`)."""

    def compiled_problem(self, split: bool = True) -> str | None:
        """Why Spark's reading of the source (``read``) is not what its Python tasks read, or None;
        ``split``: records Python takes in the same write are read by Spark too (else a failed bet has
        the Python tasks read every record, see :mod:`smt.pipeline.compiled_plan`)."""
        ...


@dataclasses.dataclass(frozen=True)
class SinkRoles:
    """What a sink (or a dead-letter writer) can do besides ``write``, resolved once (:func:`sink_roles`)."""

    #: The sink's record checks, or None (it refuses no record before the write).
    record_checks: RecordChecks | None
    #: The sink's own encoding of values, or None (the value converter encodes them).
    value_encoding: ValueEncoding | None
    #: The sink's compiled input, or None (the compiled path is not taken).
    compiled: CompiledInput | None
    #: The sink's write inside a streaming query, or None (each micro-batch is written from the driver).
    stream_write: StreamWrite | None
    #: The sink's writer inside the chain's own tasks, or None (see :class:`TaskWrite`).
    task_write: TaskWrite | None
    #: The sink's write of a stream without Python, or None (see :class:`JvmStreamWrite`).
    jvm_stream_write: JvmStreamWrite | None
    #: See :attr:`smt.connector.Sink.commits_atomically`.
    commits_atomically: bool
    #: See :attr:`smt.connector.Sink.checkpoint_keys`.
    checkpoint_keys: "tuple[str, ...] | None"


@dataclasses.dataclass(frozen=True)
class SourceRoles:
    """What a source can do besides ``read``, resolved once (:func:`source_roles`)."""

    #: The source's compiled reading, or None (the compiled path is not taken).
    compiled: CompiledSource | None
    #: See :attr:`smt.connector.Source.supports_streaming`.
    supports_streaming: bool
    #: See :attr:`smt.connector.Source.checkpoint_keys`.
    checkpoint_keys: "tuple[str, ...] | None"


def sink_roles(sink: Any) -> SinkRoles:
    """The roles ``sink`` (a :class:`smt.connector.Sink`) implements; the one place that asks."""
    return SinkRoles(
        record_checks=sink if isinstance(sink, runtime_checkable(RecordChecks)) else None,
        value_encoding=sink if isinstance(sink, runtime_checkable(ValueEncoding)) else None,
        compiled=sink if isinstance(sink, runtime_checkable(CompiledInput)) else None,
        stream_write=sink if isinstance(sink, runtime_checkable(StreamWrite)) else None,
        task_write=sink if isinstance(sink, runtime_checkable(TaskWrite)) else None,
        jvm_stream_write=sink if isinstance(sink, runtime_checkable(JvmStreamWrite)) else None,
        commits_atomically=sink.commits_atomically,
        checkpoint_keys=sink.checkpoint_keys,
    )


def source_roles(source: Any) -> SourceRoles:
    """The roles ``source`` (a :class:`smt.connector.Source`) implements; the one place that asks."""
    return SourceRoles(
        compiled=source if isinstance(source, runtime_checkable(CompiledSource)) else None,
        supports_streaming=source.supports_streaming,
        checkpoint_keys=source.checkpoint_keys,
    )
