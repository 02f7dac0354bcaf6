"""Read tasks run by Spark's Python Data Source API instead of ``spark.range`` + ``mapInArrow``.

Each read task becomes one input partition of a Python data source whose
``read`` yields the processed Arrow batches (the records read, transformed
where they were read).  The data source class is made per run, holding the
tasks and the batch step; Spark pickles it when it is registered, on a
classic session and on Spark Connect alike.  ``smt bench pipeline``
measures it against :func:`smt.pipeline.runner.read_and_transform`.
"""

from __future__ import annotations

import uuid
from typing import Any, Callable, Iterator

import pyarrow as pa

__all__ = ["read_tasks_source"]


def read_tasks_source(
    spark: Any, tasks: list, step: Callable[[pa.RecordBatch], Iterator[pa.RecordBatch]], ddl: str, max_rows: int
) -> Any:
    """A DataFrame of ``step``'s output over every batch of ``tasks``, read by a Python data source."""
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

    class _Task(InputPartition):
        def __init__(self, number: int) -> None:
            self.number = number

    time_zone = spark.conf.get("spark.sql.session.timeZone")

    class _Reader(DataSourceReader):
        def partitions(self) -> list:
            return [_Task(number) for number in range(len(tasks))]

        def read(self, partition: Any) -> Iterator[pa.RecordBatch]:
            # Unlike mapInArrow, a data source's batches must match Spark's Arrow schema exactly.
            for arrow_batch in tasks[partition.number].batches(max_rows):
                for out in step(arrow_batch):
                    yield out.cast(_as_spark_sends(out.schema, time_zone))

    name = f"smt-read-tasks-{uuid.uuid4().hex[:12]}"

    class _Source(DataSource):
        @classmethod
        def name(cls) -> str:
            return name

        def schema(self) -> str:
            return ddl

        def reader(self, schema: Any) -> DataSourceReader:
            return _Reader()

    spark.dataSource.register(_Source)
    return spark.read.format(name).load()


def _as_spark_sends(schema: pa.Schema, time_zone: str) -> pa.Schema:
    """``schema`` as Spark's own Arrow schema has it: timestamps in the session's zone, list items named element."""
    return pa.schema([pa.field(field.name, _spark_type(field.type, time_zone), field.nullable) for field in schema])


def _spark_type(type_: pa.DataType, time_zone: str) -> pa.DataType:
    if pa.types.is_timestamp(type_):
        return pa.timestamp(type_.unit, tz=time_zone)
    if pa.types.is_list(type_):
        return pa.list_(pa.field("element", _spark_type(type_.value_type, time_zone)))
    return type_
