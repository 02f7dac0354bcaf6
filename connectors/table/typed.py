"""Kafka-layout batches of values without a schema to typed table rows, on the executors.

:class:`TypedRows` (a ``mapInArrow`` function) travels to the executors
pickled with the value converter, and works a whole Arrow batch at a time:
the converter decodes the batch's values in one call
(:meth:`smt.converter.Converter.to_connect_batch`) and a
:class:`~connectors.table.columns.ColumnLayout` of the declared columns
builds the typed columns in one call; the record fields named in
``columns.metadata`` follow.  (Values with a schema reach the write as typed
JSON lines instead, read in the JVM: :mod:`connectors.table.typed_json`.)
"""

from __future__ import annotations

from typing import Any, Iterator

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import types as T

from connectors.table.columns import ColumnLayout
from connectors.table.config import metadata_column
from smt.connector import SinkRecordError
from smt.row_layout import KAFKA_ARROW_SCHEMA

__all__ = ["TypedRows", "decode_values", "metadata_fields", "record_name"]


def record_name(batch: pa.RecordBatch, row: int) -> str:
    """``topic-partition@offset`` of one record of a Kafka-layout batch (as far as the batch has them)."""
    names = batch.schema.names

    def field(name: str) -> Any:
        return batch.column(name)[row].as_py() if name in names else None

    return f"{field('topic')}-{field('partition')}@{field('offset')}"


def metadata_fields(metadata: tuple[str, ...]) -> list[T.StructField]:
    """The Spark columns of the record fields named in ``columns.metadata``."""
    types = {
        "topic": T.StringType(),
        "partition": T.IntegerType(),
        "offset": T.LongType(),
        "timestamp": T.TimestampType(),
        "key": T.BinaryType(),
        "headers": T.ArrayType(
            T.StructType([T.StructField("key", T.StringType()), T.StructField("value", T.BinaryType())])
        ),
    }
    return [T.StructField(metadata_column(name), types[name], True) for name in metadata]


class _Errors(list):
    def append_pair(self, row: int, exc: BaseException) -> None:
        self.append((row, exc))


def decode_values(converter: Any, batch: pa.RecordBatch) -> tuple[list | None, list, list[tuple[int, BaseException]]]:
    """The batch's values decoded: ``(schemas or None, values, [(row, error)])``."""
    topics = batch.column("topic").to_pylist() if "topic" in batch.schema.names else [None] * batch.num_rows
    errors = _Errors()
    schemas, values = converter.to_connect_batch(topics, batch.column("value").to_pylist(), errors.append_pair)
    return schemas, values, errors


class TypedRows:
    """``mapInArrow`` function: Kafka-layout batches as table rows of ``layout`` plus metadata columns.

    A record whose value does not fit fails the write, naming the record and
    the field (a declared schema refuses such records earlier, one by one,
    at TASK_PUT: see :meth:`connectors.table.sink.TableSink.record_errors`).
    """

    def __init__(
        self,
        converter: Any,
        layout: ColumnLayout,
        metadata: tuple[str, ...],
        where: str,
    ) -> None:
        self.converter = converter
        self.layout = layout
        self.metadata = metadata
        self.where = where

    def output_type(self) -> T.StructType:
        return T.StructType(list(self.layout.columns.fields) + metadata_fields(self.metadata))

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield self.rows(batch)

    def rows(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        _, values, errors = decode_values(self.converter, batch)
        rows, misfits = self.layout.rows(values)
        problems = errors or misfits
        if problems:
            row, exc = problems[0]
            raise SinkRecordError(f"{self.where}: record {record_name(batch, row)} cannot be written: {exc}")
        out = pa.RecordBatch.from_struct_array(self.layout.arrow(rows))
        for name in self.metadata:
            arrow_type = KAFKA_ARROW_SCHEMA.field(name).type
            column = batch.column(name) if name in batch.schema.names else pa.nulls(batch.num_rows, arrow_type)
            if name == "timestamp" and column.type.tz is None:
                column = pc.assume_timezone(column, "UTC")
            out = out.append_column(metadata_column(name), column)
        return out
