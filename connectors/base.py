"""The connector interfaces: Spark sources and sinks in Kafka's row layout.

A source returns a Spark DataFrame whose schema is Spark's Kafka source schema
(:data:`smt.record.KAFKA_ROW_SCHEMA_DDL`); a sink writes such a DataFrame.
Connectors are configured with their own keys, the prefix (``source.`` or
``sink.``) stripped, like every other plugin.

A sink may also name the records it cannot write (:meth:`Sink.record_errors`):
the pipeline then fails those records alone, at the TASK_PUT stage, through
the error policy and the dead-letter queue, as Kafka Connect's
``ErrantRecordReporter`` lets a sink task do, instead of failing the whole write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from smt.errors import DataError
from smt.plugin import Plugin

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from connectors.read_tasks import ReadTask

__all__ = ["Source", "Sink", "SinkRecordError"]


class SinkRecordError(DataError):
    """A sink cannot write one record; the message says why and names the setting involved."""


class Source(Plugin):
    """Reads records into Spark."""

    #: Whether the source can run as a Structured Streaming query.
    supports_streaming: bool = False

    def read(self, spark: "SparkSession", streaming: bool = False) -> "DataFrame":
        """A DataFrame in Kafka row layout (a streaming one when ``streaming``).

        A source may add the string column ``_smt_source_error``
        (:data:`smt.pipeline.processor.SOURCE_ERROR_COLUMN`): a non-null message
        marks a row it could not read, which then fails at the TASK_POLL stage.

        Raises :class:`smt.errors.ConfigError` or :class:`smt.errors.SmtError`
        naming the path, topic or server when the source cannot be read.
        """
        raise NotImplementedError

    def read_tasks(self, spark: "SparkSession") -> "list[ReadTask] | None":
        """The batch input cut into pieces that Python tasks read themselves, or ``None``.

        A source that can read its input with Arrow in Python returns one
        :class:`connectors.read_tasks.ReadTask` per Spark task; the pipeline
        then transforms each piece's batches where they were read, and the
        records never pass through the JVM on the way in.  ``None`` (the
        default) means: use :meth:`read`.  Only batch runs ask.
        """
        return None

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

    def write(self, df: "DataFrame", batch_id: int | None = None) -> None:
        """Write ``df`` (Kafka row layout).

        ``batch_id`` is the micro-batch id in streaming mode (writes must then
        be idempotent per id), ``None`` in batch mode.
        """
        raise NotImplementedError

    def spark_conf(self) -> dict[str, str]:
        """Spark settings the sink needs (for example connector jars)."""
        return {}
