"""``parquet``: Spark's Parquet files, one row per record in Kafka row layout.

Writing stores the Kafka-layout columns as they are.  Reading takes files
with at least a ``value`` column; other Kafka-layout columns that are missing
are null (a missing ``topic`` takes the source's ``topic`` setting) and
columns of another type are cast.  A batch read opens every footer on the
driver, so a corrupt file fails before anything runs, naming the file.

A batch read of local files happens in the pipeline's Python tasks
(:meth:`ParquetFormat.read_tasks`): pyarrow reads whole row groups, the
driver packs them into tasks by size, and columns are cast with Arrow's safe
casts (a value that does not fit its Kafka-layout type fails the read, naming
the file).  Streaming, and paths Spark must list itself, use Spark's reader.
"""

from __future__ import annotations

import dataclasses
from typing import Iterator

import pyarrow as pa
import pyarrow.compute as pc

from connectors.file._file_format import FileFormat, ReadOptions, spark_save_mode
from connectors.file._splits import max_split_bytes, pack_splits
from connectors.read_tasks import constant_strings, empty_headers, kafka_batch
from smt.batch import KAFKA_ARROW_SCHEMA
from smt.connector import ReadTask
from smt.errors import SmtError
from smt.record import KAFKA_ROW_FIELDS, KAFKA_ROW_SCHEMA_DDL


class ParquetFormat(FileFormat):
    """Kafka-layout rows as Parquet."""

    name = "parquet"

    def read(self, spark, options: ReadOptions):
        reader = options.reader(spark)
        if options.streaming:
            # A streaming file source needs its schema up front.
            files = reader.schema(KAFKA_ROW_SCHEMA_DDL).format("parquet").load(options.path)
        else:
            try:
                files = reader.format("parquet").load(options.path)
            except Exception as exc:
                raise SmtError(
                    f"{options.where}: cannot read Parquet files at '{options.path}': {_first_line(exc)}"
                ) from exc
        if "value" not in files.columns:
            raise SmtError(
                f"{options.where}: Parquet files at '{options.path}' are not in Kafka row layout: "
                f"no 'value' column (columns: {', '.join(files.columns)})"
            )
        return to_kafka_layout(files, options.topic)

    def read_tasks(self, options, files, parallelism, max_partition_bytes):
        groups = [group for name, _ in files for group in _row_groups(name, options)]
        total = sum(group.size for group in groups)
        size = max_split_bytes(total, len(files), parallelism, max_partition_bytes)
        tasks = pack_splits(groups, size, size=lambda group: group.size)
        return [_ParquetReadTask(task, options.topic) for task in tasks]

    def write(self, df, path, mode):
        df.write.mode(spark_save_mode(mode)).format("parquet").save(path)


@dataclasses.dataclass(frozen=True)
class _RowGroup:
    path: str
    index: int
    size: int


def _row_groups(path: str, options: ReadOptions) -> list[_RowGroup]:
    """The row groups of one file, after checking (on the driver) that it can be read as records."""
    import pyarrow.parquet as pq

    try:
        metadata = pq.ParquetFile(path).metadata
    except (OSError, pa.ArrowException) as exc:
        raise SmtError(f"{options.where}: cannot read Parquet files at '{options.path}': {path}: {exc}") from exc
    schema = metadata.schema.to_arrow_schema()
    if "value" not in schema.names:
        raise SmtError(
            f"{options.where}: Parquet files at '{options.path}' are not in Kafka row layout: "
            f"no 'value' column (columns: {', '.join(schema.names)})"
        )
    for field in KAFKA_ARROW_SCHEMA:
        if field.name in schema.names:
            try:
                _cast(pa.array([], schema.field(field.name).type), field.type)
            except pa.ArrowException as exc:
                raise SmtError(
                    f"{options.where}: Parquet file '{path}': column '{field.name}' of type "
                    f"{schema.field(field.name).type} cannot be read as {field.type}: {exc}"
                ) from exc
    return [
        _RowGroup(path, index, metadata.row_group(index).total_byte_size) for index in range(metadata.num_row_groups)
    ]


class _ParquetReadTask(ReadTask):
    """Row groups of Parquet files, read with pyarrow in a Python task."""

    def __init__(self, groups: list[_RowGroup], topic: str) -> None:
        self.groups = groups
        self.topic = topic

    def batches(self, max_rows: int) -> Iterator[pa.RecordBatch]:
        import pyarrow.parquet as pq

        by_file: dict[str, list[int]] = {}
        for group in self.groups:
            by_file.setdefault(group.path, []).append(group.index)
        for path, indexes in by_file.items():
            handle = pq.ParquetFile(path)
            columns = [name for name in KAFKA_ROW_FIELDS if name in handle.schema_arrow.names]
            try:
                for batch in handle.iter_batches(batch_size=max_rows, row_groups=sorted(indexes), columns=columns):
                    yield self._records(batch)
            except (OSError, pa.ArrowException) as exc:
                raise SmtError(f"Parquet file '{path}': cannot read its rows as records: {exc}") from exc

    def _records(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        columns = {name: _cast(batch.column(name), KAFKA_ARROW_SCHEMA.field(name).type) for name in batch.schema.names}
        # A missing topic is the source's topic; missing headers are none.
        topic = columns.get("topic")
        if topic is None:
            columns["topic"] = constant_strings(self.topic, batch.num_rows)
        elif topic.null_count:
            columns["topic"] = pc.fill_null(topic, self.topic)
        headers = columns.get("headers")
        if headers is not None and headers.null_count:
            columns["headers"] = pc.if_else(pc.is_null(headers), empty_headers(batch.num_rows), headers)
        return kafka_batch(batch.num_rows, **columns)


def _cast(array: pa.Array, target: pa.DataType) -> pa.Array:
    # Timestamps lose their nanoseconds as Spark's do; every other cast must be exact.
    return array.cast(target, safe=not pa.types.is_timestamp(target))


def to_kafka_layout(df, topic: str):
    """``df``'s Kafka-layout columns, cast to the layout's types; missing ones null."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    layout = StructType.fromDDL(KAFKA_ROW_SCHEMA_DDL)
    columns = []
    for name in KAFKA_ROW_FIELDS:
        field = layout[name]
        column = F.col(name).cast(field.dataType) if name in df.columns else F.lit(None).cast(field.dataType)
        if name == "topic":
            column = F.coalesce(column, F.lit(topic))
        elif name == "headers":
            column = F.coalesce(column, F.array().cast(field.dataType))
        columns.append(column.alias(name))
    return df.select(*columns)


def _first_line(exc: BaseException) -> str:
    """The Spark error's own message: the first line that is not Py4J's preamble."""
    for line in str(exc).splitlines():
        line = line.strip().removeprefix(": ")
        if line and not line.startswith("An error occurred while calling"):
            return line
    return type(exc).__name__
