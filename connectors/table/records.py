"""Table rows as Kafka-layout records, on the executors (the table source's ``mapInArrow`` function).

Each Arrow batch of table rows becomes one batch of records: the row is the
value, a ``Struct`` of the columns (:class:`~connectors.table.connect_types.ConnectValues`)
encoded by the pipeline's value converter in one call per batch
(:meth:`smt.converter.Converter.from_connect_column`); the key columns, if
any, make a ``Struct`` encoded by the key converter.  A row a converter
cannot encode is marked with a message in :data:`~smt.connector.SOURCE_ERROR_COLUMN`,
so it fails at TASK_POLL and goes to the dead-letter queue instead of
stopping the read.

Where a record came from, in batch and streaming mode alike (the table
source adds the two columns this reads, :data:`SPLIT_COLUMN` and
:data:`READ_AT_COLUMN`, in the JVM before the rows reach Python):

- **partition**: the Spark split of a data file that held the row, named by
  a CRC-32 of the file's path and the byte the split starts at,
  ``crc32(concat(input_file_name(), '@', input_file_block_start())) & 2147483647``
  in Spark SQL, so a record's file can be found again.  Rows that come from
  no file (JDBC) take the number of the Spark task that read them.
- **offset**: the row's index among the rows read from that split (or task),
  counted from 0.  A split is read whole by one task, in order, so the
  coordinates do not depend on how Spark groups splits into tasks or files
  into micro-batches: a streaming run restarted from its checkpoint, or a
  second batch run over the same files, gives a row the same partition and
  offset.  That holds while a file is split the same way: always for a file
  under ``spark.sql.files.openCostInBytes`` (4 MB), which is one split; a
  larger one is cut at Spark's split size, which depends on the bytes and
  parallelism of the read (Iceberg plans its own, ``read.split.target-size``).
  The streaming readers of Delta and Iceberg expose no row index
  (``_metadata.row_index`` is Parquet's, and only outside Delta's stream), hence
  the count.
- **timestamp**: Spark's ``current_timestamp()``: the start of a batch run,
  or the micro-batch's time, which Spark keeps in its offset log and gives
  again when a restart replays the micro-batch.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np
import pyarrow as pa
from pyspark import TaskContext
from pyspark.sql import types as T

from connectors.table.connect_types import ConnectValues
from smt.connector import SOURCE_ERROR_COLUMN
from smt.python_worker import prepare_worker
from smt.row_layout import KAFKA_ARROW_SCHEMA, KAFKA_ROW_SCHEMA_DDL

__all__ = ["READ_AT_COLUMN", "RECORDS_DDL", "SPLIT_COLUMN", "TableRecords", "coordinate_columns"]

#: The records' Spark schema: the Kafka row layout and the source's error column.
RECORDS_DDL = f"{KAFKA_ROW_SCHEMA_DDL}, {SOURCE_ERROR_COLUMN} string"

#: The column the source adds for a row's split (null for rows from no file); see the module's doc.
SPLIT_COLUMN = "__smt_table_split"
#: The column the source adds for the records' timestamp.
READ_AT_COLUMN = "__smt_table_read_at"

_RECORDS_ARROW_SCHEMA = KAFKA_ARROW_SCHEMA.append(pa.field(SOURCE_ERROR_COLUMN, pa.string()))

#: :data:`SPLIT_COLUMN`'s value for rows from no file (a CRC masked to 31 bits is never negative).
_NO_FILE = -1


def coordinate_columns() -> dict[str, str]:
    """The Spark SQL expressions of :data:`SPLIT_COLUMN` and :data:`READ_AT_COLUMN`, to select right over the scan."""
    split = (
        "CASE WHEN input_file_name() = '' THEN NULL ELSE CAST(crc32(concat(input_file_name(), '@', "
        "input_file_block_start())) & 2147483647 AS INT) END"
    )
    return {SPLIT_COLUMN: split, READ_AT_COLUMN: "current_timestamp()"}


class TableRecords:
    """``mapInArrow`` function: table rows of ``columns`` as records of ``topic``.

    ``key_columns`` (may be empty: null keys) make the key.  The input
    batches carry :data:`SPLIT_COLUMN` and :data:`READ_AT_COLUMN` besides
    ``columns``.  Travels to the executors pickled with both converters.
    """

    def __init__(
        self,
        columns: T.StructType,
        key_columns: list[str],
        topic: str,
        key_converter: Any,
        value_converter: Any,
        where: str,
    ) -> None:
        self.values = ConnectValues(columns)
        self.keys = ConnectValues(T.StructType([columns[name] for name in key_columns])) if key_columns else None
        self.topic = topic
        self.key_converter = key_converter
        self.value_converter = value_converter
        self.where = where

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        prepare_worker()
        task = TaskContext.get().partitionId()
        rows_read: dict[int, int] = {}  # split -> rows of it read so far by this task
        for batch in batches:
            partitions, offsets = _coordinates(batch.column(SPLIT_COLUMN), task, rows_read)
            yield self.records(batch, partitions, offsets)

    def records(self, batch: pa.RecordBatch, partitions: np.ndarray, offsets: np.ndarray) -> pa.RecordBatch:
        """The rows of ``batch`` as records; row ``i`` gets ``partitions[i]`` and ``offsets[i]``."""
        n = batch.num_rows
        topics = [self.topic] * n
        errors: dict[int, str] = {}

        def failed(row: int, exc: BaseException) -> None:
            errors.setdefault(row, f"{self.where}: row {offsets[row]} of split {partitions[row]}: {exc}")

        value = _encoded(self.value_converter, self.values, batch, topics, failed)
        key = (
            pa.nulls(n, pa.binary())
            if self.keys is None
            else _encoded(self.key_converter, self.keys, batch, topics, failed)
        )
        messages = [errors.get(row) for row in range(n)] if errors else None
        return pa.RecordBatch.from_arrays(
            [
                key,
                value,
                pa.array(topics, pa.string()),
                pa.array(partitions, pa.int32()),
                pa.array(offsets, pa.int64()),
                batch.column(READ_AT_COLUMN).cast(pa.int64()).cast(pa.timestamp("us")),
                pa.array(np.zeros(n, np.int32)),
                pa.array([[]] * n, _RECORDS_ARROW_SCHEMA.field("headers").type),
                pa.array(messages, pa.string()) if messages else pa.nulls(n, pa.string()),
            ],
            schema=_RECORDS_ARROW_SCHEMA,
        )


def _coordinates(splits: pa.Array, task: int, rows_read: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Each row's partition and offset (see the module's doc), counting on from ``rows_read``, which it updates.

    A split's rows come in one run (a task reads a split whole, in order), so
    the count is kept per run of equal splits, not per row.
    """
    split = splits.fill_null(_NO_FILE).to_numpy(zero_copy_only=False).astype(np.int64)
    partitions = np.where(split == _NO_FILE, task, split).astype(np.int32)
    offsets = np.empty(len(split), np.int64)
    runs = np.flatnonzero(split[1:] != split[:-1]) + 1
    starts = np.concatenate(([0], runs, [len(split)])) if len(split) else np.zeros(1, np.int64)
    for start, stop in zip(starts[:-1], starts[1:], strict=True):
        first = rows_read.get(split[start], 0)
        offsets[start:stop] = np.arange(first, first + stop - start)
        rows_read[split[start]] = first + stop - start
    return partitions, offsets


def _encoded(converter: Any, connect: ConnectValues, batch: pa.RecordBatch, topics: list[str], failed) -> pa.Array:
    """The ``connect`` values of ``batch`` encoded by ``converter``, as a binary column."""
    values = connect.values(batch)
    encoded = converter.from_connect_column(topics, [connect.schema] * len(values), values, failed)
    return encoded if isinstance(encoded, pa.Array) else pa.array(encoded, pa.binary())
