"""The connector interfaces: Spark sources and sinks in Kafka's row layout.

They live in the core, with the other plugin interfaces; the built-in
connectors implement them in :mod:`connectors`.  Each declares its
``connector_kind``, which the plugin registry files it under.

A source returns a Spark DataFrame whose schema is Spark's Kafka source schema
(:data:`smt.record.KAFKA_ROW_SCHEMA_DDL`); a sink writes such a DataFrame.
Connectors are configured with their own keys, the prefix (``source.`` or
``sink.``) stripped, like every other plugin.

The sink contract, on one screen:

- **Core** (every sink): :meth:`Sink.write` a DataFrame in Kafka row layout
  (``batch_id`` set per streaming micro-batch: idempotent per id).  Optional
  overrides with defaults: :meth:`Sink.open` (given one :class:`SinkContext`:
  source, converters, dead letters, then session and checkpoint),
  :meth:`Sink.output_fields`, :meth:`Sink.output_paths`,
  :meth:`Sink.output_conflicts`, :meth:`Sink.spark_conf`,
  :meth:`Sink.write_with_dead_letters`; declared data:
  :attr:`Sink.commits_atomically`, :attr:`Sink.checkpoint_keys`.
- **Roles** (:mod:`smt.connector_roles`, ``typing.Protocol`` classes, resolved
  once when the plan is built): ``RecordChecks`` (name the records it cannot
  write; they fail alone at TASK_PUT, as Kafka Connect's
  ``ErrantRecordReporter`` lets a sink task do), ``ValueEncoding`` (encode
  values itself), ``CompiledInput`` (take the compiled path's rows).

Lifecycle: ``open(context)`` when the plan is built (no session: ``smt
validate``), ``open(context)`` again with the session (and a streaming
query's checkpoint) before the job reads, then per batch on the executors
the roles' checks, then ``write_with_dead_letters`` → ``write`` on the
driver.  Dead-letter writers are sinks too.

Sources: :meth:`Source.read` is the core; :attr:`Source.supports_streaming`
and :attr:`Source.checkpoint_keys` are declared data, :meth:`Source.read_tasks`,
:meth:`Source.input_paths`, :meth:`Source.committed` have defaults, and
``CompiledSource`` is their one role.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator

from smt.compiled import COMPILED_KEY_COLUMN, TYPE_KNOWN_COLUMN, compiled_value_columns
from smt.errors import DataError
from smt.plugin import Plugin

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from smt.converter import Converter

__all__ = [
    "Source",
    "Sink",
    "SinkContext",
    "SinkRecordError",
    "ReadTask",
    "SOURCE_ERROR_COLUMN",
    "SINK_PART",
    "DEAD_LETTERS_PART",
]

#: Optional string column of a source's rows: a non-null message marks a row the source could not read.
SOURCE_ERROR_COLUMN = "_smt_source_error"


#: The parts of a write that :meth:`Sink.write_with_dead_letters` reports committed, in order.
SINK_PART, DEAD_LETTERS_PART = "sink", "dead_letters"


class SinkRecordError(DataError):
    """A sink cannot write one record; the message says why and names the setting involved."""


@dataclasses.dataclass(frozen=True)
class SinkContext:
    """What a sink is given of its pipeline (:meth:`Sink.open`), in one object instead of ordered calls."""

    #: The pipeline's source (a sink that must not write where the pipeline reads looks at it).
    source: "Source | None" = None
    #: False when no transform of the chain can change a record's topic
    #: (:meth:`smt.transform.Transform.changed_fields`).
    may_route: bool = True
    #: The configured converters: a sink that writes the records' data rather than their bytes decodes with them.
    key_converter: "Converter | None" = None
    value_converter: "Converter | None" = None
    #: Where the pipeline's dead letters go (itself a :class:`Sink`), or None.
    dead_letters: "Sink | None" = None
    #: The Spark session that runs the job; None while the plan is only built.
    session: "SparkSession | None" = None
    #: A streaming query's ``checkpoint.location`` (a sink that commits micro-batches itself keeps
    #: its commits per query); None in batch mode and while the plan is only built.
    checkpoint: str | None = None


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

    def open(self, context: "SinkContext") -> None:
        """Called on the driver with what the sink may need of the pipeline: twice.

        First when the plan is built (``context.session`` is None: ``smt
        validate`` checks a pipeline without Spark), then before the job reads
        its first record, with the session and, for a streaming query, its
        checkpoint location.  A sink keeps here what it needs (it travels to
        the executors with the sink: no connections or sessions), and raises
        :class:`smt.errors.ConfigError` naming its key when it can tell that it
        cannot do its job (it would write where the pipeline reads, or its
        guarantee cannot hold with these dead letters), or
        :class:`smt.errors.SmtError` when the destination cannot be looked at.
        The default does nothing.
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

        # The compiled path's columns are the sink's (smt.connector_roles.CompiledInput), never a dead letter's.
        compiled = [*compiled_value_columns(df.columns), TYPE_KNOWN_COLUMN, COMPILED_KEY_COLUMN]
        df = df.persist()
        try:
            self.write(df.where(~F.col(flag)).drop(flag), batch_id)
            written(SINK_PART)
            dead_letters.write(df.where(F.col(flag)).drop(flag, *compiled), batch_id)
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
