"""Table rows as Kafka-layout records, on the executors (the table source's ``mapInArrow`` function).

Each Arrow batch of table rows becomes one batch of records: the row is the
value, a ``Struct`` of the columns (:class:`~connectors.table.connect_types.ConnectValues`)
encoded by the pipeline's value converter in one call per batch
(:meth:`smt.converter.Converter.from_connect_column`); the key columns, if
any, make a ``Struct`` encoded by the key converter.  A row a converter
cannot encode is marked with a message in :data:`~smt.connector.SOURCE_ERROR_COLUMN`,
so it fails at TASK_POLL and goes to the dead-letter queue instead of
stopping the read.

Partition and offset: the Spark task that read the row (the table's input
split) and the row's index within it, so a record is named uniquely within
a run, and again in a run over the same table with the same Spark settings.
"""

from __future__ import annotations

from typing import Any, Iterator

import pyarrow as pa
from pyspark import TaskContext
from pyspark.sql import types as T

from connectors.table.connect_types import ConnectValues
from smt.connector import SOURCE_ERROR_COLUMN
from smt.row_layout import KAFKA_ARROW_SCHEMA, KAFKA_ROW_SCHEMA_DDL

__all__ = ["RECORDS_DDL", "TableRecords"]

#: The records' Spark schema: the Kafka row layout and the source's error column.
RECORDS_DDL = f"{KAFKA_ROW_SCHEMA_DDL}, {SOURCE_ERROR_COLUMN} string"

_RECORDS_ARROW_SCHEMA = KAFKA_ARROW_SCHEMA.append(pa.field(SOURCE_ERROR_COLUMN, pa.string()))


class TableRecords:
    """``mapInArrow`` function: table rows of ``columns`` as records of ``topic``.

    ``key_columns`` (may be empty: null keys) make the key; ``read_at_micros``
    is every record's timestamp (the time of the read).  Travels to the
    executors pickled with both converters.
    """

    def __init__(
        self,
        columns: T.StructType,
        key_columns: list[str],
        topic: str,
        read_at_micros: int,
        key_converter: Any,
        value_converter: Any,
        where: str,
    ) -> None:
        self.values = ConnectValues(columns)
        self.keys = ConnectValues(T.StructType([columns[name] for name in key_columns])) if key_columns else None
        self.topic = topic
        self.read_at_micros = read_at_micros
        self.key_converter = key_converter
        self.value_converter = value_converter
        self.where = where

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        partition = TaskContext.get().partitionId()
        offset = 0
        for batch in batches:
            yield self.records(batch, partition, offset)
            offset += batch.num_rows

    def records(self, batch: pa.RecordBatch, partition: int, first_offset: int) -> pa.RecordBatch:
        """The rows of ``batch`` as records; row ``i`` gets offset ``first_offset + i``."""
        n = batch.num_rows
        topics = [self.topic] * n
        errors: dict[int, str] = {}

        def failed(row: int, exc: BaseException) -> None:
            errors.setdefault(row, f"{self.where}: row {first_offset + row} of split {partition}: {exc}")

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
                pa.array([partition] * n, pa.int32()),
                pa.array(range(first_offset, first_offset + n), pa.int64()),
                pa.array([self.read_at_micros] * n, pa.int64()).cast(pa.timestamp("us")),
                pa.array([0] * n, pa.int32()),
                pa.array([[]] * n, _RECORDS_ARROW_SCHEMA.field("headers").type),
                pa.array(messages, pa.string()) if messages else pa.nulls(n, pa.string()),
            ],
            schema=_RECORDS_ARROW_SCHEMA,
        )


def _encoded(converter: Any, connect: ConnectValues, batch: pa.RecordBatch, topics: list[str], failed) -> pa.Array:
    """The ``connect`` values of ``batch`` encoded by ``converter``, as a binary column."""
    values = connect.values(batch)
    encoded = converter.from_connect_column(topics, [connect.schema] * len(values), values, failed)
    return encoded if isinstance(encoded, pa.Array) else pa.array(encoded, pa.binary())
