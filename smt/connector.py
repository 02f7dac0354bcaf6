"""The connector interfaces: Spark sources and sinks in Kafka's row layout.

They live in the core, with the other plugin interfaces; the built-in
connectors implement them in :mod:`connectors`.  Each declares its
``connector_kind``, which the plugin registry files it under.

A source returns a Spark DataFrame whose schema is Spark's Kafka source schema
(:data:`smt.record.KAFKA_ROW_SCHEMA_DDL`); a sink writes such a DataFrame.
Connectors are configured with their own keys, the prefix (``source.`` or
``sink.``) stripped, like every other plugin.

A sink may also name the records it cannot write (:meth:`Sink.record_errors`):
the pipeline then fails those records alone, at the TASK_PUT stage, through
the error policy and the dead-letter queue, as Kafka Connect's
``ErrantRecordReporter`` lets a sink task do, instead of failing the whole write.

Before that, a sink learns which records the chain routed
(:meth:`Sink.prepare_records`): those whose topic differs from the topic of
the input record they came from.  The Kafka sink sends the others to
``sink.topic``.  And when the pipeline is built, a sink sees its source
(:meth:`Sink.bind_source`), so that it can refuse to write where the
pipeline reads, and its converters (:meth:`Sink.bind_converters`), so that it
can read the data of the records it writes; before the job runs it sees the
Spark session (:meth:`Sink.bind_session`), and for each batch it may refuse
records by their transformed data before the value converter encodes them
(:meth:`Sink.value_errors`), and encode the values itself
(:meth:`Sink.encode_values`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Iterator

from smt.errors import DataError
from smt.plugin import Plugin

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from smt.converter import Converter

__all__ = ["Source", "Sink", "SinkRecordError", "ReadTask", "SOURCE_ERROR_COLUMN", "SINK_PART", "DEAD_LETTERS_PART"]

#: Optional string column of a source's rows: a non-null message marks a row the source could not read.
SOURCE_ERROR_COLUMN = "_smt_source_error"


#: The parts of a write that :meth:`Sink.write_with_dead_letters` reports committed, in order.
SINK_PART, DEAD_LETTERS_PART = "sink", "dead_letters"


class SinkRecordError(DataError):
    """A sink cannot write one record; the message says why and names the setting involved."""


class ReadTask:
    """One Spark task's share of a source's input; pickled to the executor that reads it.

    See :meth:`Source.read_tasks`, and :mod:`connectors.read_tasks` for helpers
    that build its batches.
    """

    def batches(self, max_rows: int) -> "Iterator[pa.RecordBatch]":
        """The records, as Arrow batches of at most ``max_rows`` rows in Kafka row layout.

        Batches have the columns of :data:`smt.batch.KAFKA_ARROW_SCHEMA`
        (and may add :data:`SOURCE_ERROR_COLUMN`).
        Errors name the file, topic or server they concern.
        """
        raise NotImplementedError

    def locate(self, offset: int) -> str | None:
        """Where the record this task read with ``offset`` came from, as a user would look for it
        (``line 3 of /data/events.txt``), or None; asked only when a record fails.  The default
        knows nothing better than the record's partition and offset.
        """
        return None


class Source(Plugin):
    """Reads records into Spark."""

    #: The lookup kind the registry files the class under (:mod:`smt.plugins` reads it, so that
    #: it tells sources from sinks without importing this module).
    connector_kind: ClassVar[str] = "source"

    #: Whether the source can run as a Structured Streaming query.
    supports_streaming: bool = False

    #: The keys (prefix stripped) that say *what* the source reads (its paths, its topics): a
    #: streaming checkpoint's stored offsets mean nothing once one changes, so a run that changes
    #: one is refused.  ``None``: every key of the source counts.
    checkpoint_keys: "tuple[str, ...] | None" = None

    def read(self, spark: "SparkSession", streaming: bool = False) -> "DataFrame":
        """A DataFrame in Kafka row layout (a streaming one when ``streaming``).

        A source may add the string column ``_smt_source_error``
        (:data:`SOURCE_ERROR_COLUMN`): a non-null message
        marks a row it could not read, which then fails at the TASK_POLL stage.

        Raises :class:`smt.errors.ConfigError` or :class:`smt.errors.SmtError`
        naming the path, topic or server when the source cannot be read.
        """
        raise NotImplementedError

    def read_tasks(self, spark: "SparkSession") -> "list[ReadTask] | None":
        """The batch input cut into pieces that Python tasks read themselves, or ``None``.

        A source that can read its input with Arrow in Python returns one
        :class:`ReadTask` per Spark task; the pipeline
        then transforms each piece's batches where they were read, and the
        records never pass through the JVM on the way in.  ``None`` (the
        default) means: use :meth:`read`.  Only batch runs ask.
        """
        return None

    def bind_converters(self, key_converter: "Converter", value_converter: "Converter") -> None:
        """Called once on the driver when the pipeline is built, with its configured key and value converters.

        A source that reads data rather than bytes (the table source reads
        typed columns) keeps them here and encodes each record with them, so
        the pipeline decodes it as it decodes any other.  The default does nothing.
        """

    def committed(self, end_offsets: Any = None) -> None:
        """Called on the driver once what the source read is durably written (records and dead letters).

        In batch mode once, after the run's writes committed (``end_offsets`` None: the source knows
        what it read); in streaming mode after each micro-batch, with ``end_offsets`` the
        micro-batch's end as Spark's progress reports it for this source (``endOffset``).  A source
        that reports progress outside Spark does it here (the Kafka source commits its consumer
        group's offsets, as Kafka Connect does).  It must not raise for a reporting failure: the
        records are written.  The default does nothing.
        """

    def input_paths(self) -> dict[str, str]:
        """The files or folders the source reads, by full key (``{"source.path": "/data/in"}``).

        The pipeline refuses to write into them (see :mod:`smt.pipeline.paths`).
        """
        return {}

    def spark_conf(self) -> dict[str, str]:
        """Spark settings the source needs (for example connector jars)."""
        return {}


class Sink(Plugin):
    """Writes records from Spark."""

    #: The lookup kind the registry files the class under (see :attr:`Source.connector_kind`).
    connector_kind: ClassVar[str] = "sink"

    #: The keys (prefix stripped) that say *where* the sink writes; a streaming checkpoint written
    #: with other values is refused (see :attr:`Source.checkpoint_keys`).  ``None``: every key.
    checkpoint_keys: "tuple[str, ...] | None" = None

    #: True when a write that fails leaves none of its records in the sink (a Spark file job's
    #: commit protocol, one micro-batch's commit); then a failed run's count of records written
    #: is known.  False (Kafka: records sent before the failure stay) makes that count uncertain.
    commits_atomically: bool = False

    def output_fields(self) -> frozenset[str] | None:
        """The Kafka row fields the sink writes, or ``None`` for all of them.

        ``write`` then receives a DataFrame with at least these columns.
        """
        return None

    def output_paths(self) -> dict[str, str]:
        """The folders the sink writes, by full key (``{"sink.path": "/data/out"}``).

        The pipeline refuses any that is, contains or lies inside a source's
        :meth:`Source.input_paths`.
        """
        return {}

    def output_conflicts(self) -> dict[str, str]:
        """Why a batch run would refuse the output as it is now, by full key (an existing folder
        the sink may not replace), so that ``smt validate`` finds it without Spark; the default
        finds nothing.
        """
        return {}

    def bind_source(self, source: Source, may_route: bool) -> None:
        """Called once on the driver when the pipeline is built, with its configured source.

        ``may_route`` is False when no transform of the chain can change a
        record's topic (each transform declares what it may change,
        :meth:`smt.transform.Transform.changed_fields`).  A sink that must not
        write where the pipeline reads remembers what it needs here (it
        travels to the executors with the sink) and raises
        :class:`smt.errors.ConfigError`, naming its key, when it can tell that
        it would refuse every record.  The default does nothing.
        """

    def bind_converters(self, key_converter: "Converter", value_converter: "Converter") -> None:
        """Called once on the driver when the pipeline is built, with its configured key and value converters.

        A sink that writes the records' data rather than their bytes (the
        table sink turns a value into typed columns) keeps them here; they
        travel to the executors with the sink and decode what
        :meth:`record_errors` and :meth:`write` receive.  The default does
        nothing.
        """

    def bind_session(self, spark: "SparkSession") -> None:
        """Called once on the driver before the job reads a record, with the session that runs it.

        A sink that refuses records by what its destination holds now (the
        table sink: a table's columns) looks it up here; what it keeps travels
        to the executors with the sink, for :meth:`value_errors` and
        :meth:`record_errors`.  Raises :class:`smt.errors.SmtError` naming the
        key when the destination cannot be looked at.  The default does nothing.
        """

    def value_errors(
        self, topics: "list[str | None]", schemas: "list | None", values: list
    ) -> Iterable[tuple[int, BaseException]]:
        """The records of one batch this sink cannot write, judged on their data, as ``(row, error)`` pairs.

        Called on the executors for every batch after the chain and before the
        value converter encodes it: ``values`` are the transformed record
        values (Connect data), ``schemas`` their Connect schemas (``None`` when
        no value has one), ``topics`` the records' topics.  A sink that writes
        the records' data rather than their bytes (see
        :meth:`bind_converters`) refuses here what it can tell from the
        schema without decoding the bytes again (a field whose type conflicts
        with the table's column).  The records named fail at the TASK_PUT
        stage, like those of :meth:`record_errors`; the lists must not be
        changed.  The default finds none.
        """
        return ()

    def encode_values(self, topics: "list[str | None]", schemas: "list | None", values: list) -> "pa.Array | None":
        """The values of one batch as this sink reads them back in :meth:`write`, or ``None`` (the default).

        Called on the executors for every batch, after :meth:`value_errors`,
        in place of the value converter: ``None`` lets the converter encode
        the values as usual.  A sink that writes the records' data rather than
        their bytes (the table sink) returns a binary Arrow array, one entry
        per value in order, in an encoding of its own that it reads cheaply
        (no converter round trip).  :meth:`record_errors` and :meth:`write`
        then see that encoding; dead letters keep the input record's bytes.
        It must not fail on a value :meth:`value_errors` let through.
        """
        return None

    def prepare_records(self, records: "pa.RecordBatch", routed: "np.ndarray") -> "pa.RecordBatch":
        """The records of one batch as this sink will write them.

        ``records`` is what :meth:`record_errors` receives (serialized, the
        :meth:`output_fields` columns); ``routed`` holds one bool per row: True
        when the chain changed the record's topic, compared with the input
        record it came from (a null topic counts as empty).  Called on the
        executors for every batch, before :meth:`record_errors`; it must keep
        the rows and their order.  The default returns ``records`` as they are.
        """
        return records

    def record_errors(self, records: "pa.RecordBatch") -> Iterable[tuple[int, BaseException]]:
        """The records of ``records`` this sink cannot write, as ``(row, error)`` pairs.

        ``records`` is an Arrow batch of what ``write`` will receive: the final,
        serialized records in Kafka row layout (the :meth:`output_fields`
        columns).  The pipeline calls this on the executors for every batch,
        before writing; each record named fails at the TASK_PUT stage
        (``errors.tolerance=none`` stops the run naming it, ``all`` skips it
        and sends the original input record to the dead-letter queue), so one
        bad record no longer fails the whole Spark write.  Use it for reasons
        knowable from the record alone, and check whole columns (Arrow
        compute, numpy): it runs for every batch.  The default finds none.

        The sink travels to the executors pickled inside the batch processor:
        keep driver-only resources (connections, sessions) out of its state.
        """
        return ()

    def bind_dead_letters(self, dead_letters: Any) -> None:
        """Called once on the driver when the pipeline is built, with its dead-letter queue.

        A sink whose guarantee depends on where dead letters go (the Kafka
        sink's exactly-once writes them in its own transactions) raises
        :class:`smt.errors.ConfigError`, naming the key, when it cannot keep
        it.  The default does nothing.
        """

    def bind_checkpoint(self, location: str) -> None:
        """Called on the driver before a streaming query starts, with its ``checkpoint.location``.

        A sink that commits micro-batches itself keeps its commits per query
        (Spark numbers every query's batches from 0, and keeps the query's id
        in the checkpoint), so that two queries writing to one place do not
        take each other's batches for their own.  The default does nothing.
        """

    def write_with_dead_letters(
        self,
        df: "DataFrame",
        dead_letters: Any,
        flag: str,
        batch_id: int | None = None,
        written: "Callable[[str], None]" = lambda part: None,
    ) -> None:
        """Write one run's (or micro-batch's) records, and its dead letters to ``dead_letters``.

        ``df`` holds both, told apart by the boolean column ``flag``: True
        for a dead letter, False for a record, null for neither (a row the
        pipeline uses internally).  ``written(part)`` is called as each part
        is committed: :data:`SINK_PART` for the records, then
        :data:`DEAD_LETTERS_PART` (a failed run counts what was committed from
        them).  The default writes the records with :meth:`write`, then the
        dead letters with ``dead_letters.write``, each without ``flag``; a sink
        that must write both in the same tasks (one transaction) overrides it.
        """
        from pyspark.sql import functions as F

        df = df.persist()
        try:
            self.write(df.where(~F.col(flag)).drop(flag), batch_id)
            written(SINK_PART)
            dead_letters.write(df.where(F.col(flag)).drop(flag), batch_id)
            written(DEAD_LETTERS_PART)
        finally:
            df.unpersist()

    def write(self, df: "DataFrame", batch_id: int | None = None) -> None:
        """Write ``df`` (Kafka row layout).

        ``batch_id`` is the micro-batch id in streaming mode (writes must then
        be idempotent per id), ``None`` in batch mode.
        """
        raise NotImplementedError

    def spark_conf(self) -> dict[str, str]:
        """Spark settings the sink needs (for example connector jars)."""
        return {}
