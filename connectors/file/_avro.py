"""``avro``: Avro container files of Kafka-layout records (``kafka_record.avsc``), via fastavro.

Spark's own ``avro`` data source is an extra jar (spark-avro) that a shared or
remote SparkSession may not have; fastavro is a Python dependency we already
ship to executors, so this format needs no jar and works on any master.

Reading goes through Spark's ``binaryFile`` source (batch and streaming file
source alike: each file arrives whole, with its path) and decodes each file on
the executors.  Files need a ``value`` field; the other fields of
``kafka_record.avsc`` are optional (``timestamp`` is epoch milliseconds, a
``timestamp-millis`` long).  A file that is not Avro, or is cut short, fails
the read naming the file.

Writing encodes each partition into one file in a hidden staging folder inside
the target directory (the executors need the file system the driver sees:
local, NFS, or any file system pyarrow can open by URI), then the driver
moves the files of the tasks that succeeded into place and removes the
staging folder.
"""

from __future__ import annotations

import datetime
import io
import json
import os
import uuid
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.compute as pc

from connectors.file._file_format import FileFormat, OutputExistsError, ReadOptions
from smt.data.logical import datetime_to_millis
from smt.errors import SmtError
from smt.row_layout import KAFKA_ARROW_SCHEMA, KAFKA_ROW_FIELDS, KAFKA_ROW_SCHEMA_DDL

SCHEMA_FILE = os.path.join(os.path.dirname(__file__), "kafka_record.avsc")

#: Records per Arrow batch handed to Spark when decoding a file.
_DECODE_BATCH_ROWS = 10_000

#: Spark's fixed schema of the ``binaryFile`` source.
_BINARY_FILE_SCHEMA_DDL = "path string, modificationTime timestamp, length long, content binary"


def kafka_record_schema() -> dict[str, Any]:
    with open(SCHEMA_FILE, encoding="utf-8") as handle:
        return json.load(handle)


class AvroFormat(FileFormat):
    """Kafka-layout records as Avro container files (fastavro on the executors)."""

    name = "avro"

    def read(self, spark, options: ReadOptions):
        reader = options.reader(spark).format("binaryFile")
        if options.streaming:
            reader = reader.schema(_BINARY_FILE_SCHEMA_DDL)  # a streaming file source needs it up front
        files = reader.load(options.path)
        decoder = _AvroDecoder(options.topic, options.where)
        return files.select("path", "content").mapInArrow(decoder, KAFKA_ROW_SCHEMA_DDL)

    def write(self, df, path, mode):
        from smt.driver_files import driver_files

        files = driver_files(df.sparkSession)
        if files.exists(path):
            if mode == "errorifexists":
                raise OutputExistsError(
                    f"cannot write Avro files to '{path}': it already exists (write.mode=errorifexists)"
                )
            if mode == "ignore":
                return
            if mode == "overwrite":
                files.delete(path)
        staging = f"{path.rstrip('/')}/_temporary-{uuid.uuid4().hex}"
        written = df.mapInArrow(_AvroPartitionWriter(staging), "file string").collect()
        files.mkdirs(path)
        for row in written:
            files.rename(f"{staging}/{row.file}", f"{path.rstrip('/')}/{row.file}")
        files.delete(staging)


class _AvroDecoder:
    """Executor side of a read: whole Avro files in, Kafka-layout Arrow batches out."""

    def __init__(self, topic: str, where: str) -> None:
        self.topic = topic
        self.where = where

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            paths = batch.column("path").to_pylist()
            contents = batch.column("content")
            for row, path in enumerate(paths):
                yield from self.decode_file(path, contents[row].as_py())

    def decode_file(self, path: str, content: bytes) -> Iterator[pa.RecordBatch]:
        import fastavro

        try:
            reader = fastavro.reader(io.BytesIO(content))
            _check_layout(reader.writer_schema, path, self.where)
            columns = _Columns(self.topic)
            for record in reader:
                columns.add(record)
                if columns.rows >= _DECODE_BATCH_ROWS:
                    yield columns.to_arrow()
                    columns = _Columns(self.topic)
        except SmtError:
            raise
        except Exception as exc:
            raise SmtError(f"{self.where}: corrupt Avro file '{path}': {type(exc).__name__}: {exc}") from exc
        if columns.rows:
            yield columns.to_arrow()


def _check_layout(schema: Any, path: str, where: str) -> None:
    fields = {f.get("name") for f in schema.get("fields", [])} if isinstance(schema, dict) else set()
    if "value" not in fields:
        raise SmtError(
            f"{where}: Avro file '{path}' is not in Kafka row layout: its records have no "
            f"'value' field (fields: {', '.join(sorted(f for f in fields if f)) or 'none'})"
        )


class _Columns:
    """Decoded records gathered column by column."""

    def __init__(self, topic: str) -> None:
        self.topic = topic
        self.rows = 0
        self.values: dict[str, list[Any]] = {name: [] for name in KAFKA_ROW_FIELDS}

    def add(self, record: dict[str, Any]) -> None:
        values = self.values
        values["key"].append(_as_bytes(record.get("key")))
        values["value"].append(_as_bytes(record.get("value")))
        values["topic"].append(record.get("topic") or self.topic)
        values["partition"].append(record.get("partition"))
        values["offset"].append(record.get("offset"))
        values["timestamp"].append(_epoch_millis(record.get("timestamp")))
        values["timestampType"].append(record.get("timestampType", 0))
        values["headers"].append(
            [{"key": h.get("key"), "value": _as_bytes(h.get("value"))} for h in record.get("headers") or ()]
        )
        self.rows += 1

    def to_arrow(self) -> pa.RecordBatch:
        arrays = []
        for field in KAFKA_ARROW_SCHEMA:
            data = self.values[field.name]
            if field.name == "timestamp":
                arrays.append(pa.array(data, pa.int64()).cast(pa.timestamp("ms")).cast(field.type))
            else:
                arrays.append(pa.array(data, field.type))
        return pa.RecordBatch.from_arrays(arrays, schema=KAFKA_ARROW_SCHEMA)


def _as_bytes(value: Any) -> bytes | None:
    return value.encode("utf-8") if isinstance(value, str) else value


def _epoch_millis(value: Any) -> int | None:
    return datetime_to_millis(value) if isinstance(value, datetime.datetime) else value


class _AvroPartitionWriter:
    """Executor side of a write: one partition's rows into one Avro file in ``staging``."""

    def __init__(self, staging: str) -> None:
        self.staging = staging
        self.schema = kafka_record_schema()

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import fastavro
        from pyarrow import fs as pafs
        from pyspark import TaskContext

        records = _records(batches)
        first = next(records, None)
        if first is None:
            return
        context = TaskContext.get()
        name = f"part-{context.partitionId():05d}-{context.attemptNumber()}-{uuid.uuid4().hex[:12]}.avro"
        filesystem, directory = pafs.FileSystem.from_uri(self.staging)
        filesystem.create_dir(directory, recursive=True)
        with filesystem.open_output_stream(f"{directory}/{name}") as out:
            fastavro.writer(out, fastavro.parse_schema(self.schema), _chain(first, records), codec="deflate")
        yield pa.RecordBatch.from_pydict({"file": [name]})


def _records(batches: Iterator[pa.RecordBatch]) -> Iterator[dict[str, Any]]:
    for batch in batches:
        # Timestamps go out as epoch milliseconds: fastavro would read naive
        # datetimes as local time.
        millis = pc.divide(batch.column("timestamp").cast(pa.int64()), 1000)
        table = batch.set_column(batch.schema.get_field_index("timestamp"), "timestamp", millis)
        # The schema requires a timestampType; a record without one is written
        # as CREATE_TIME (0), the default reading assumes too.
        kind = batch.schema.get_field_index("timestampType")
        table = table.set_column(kind, "timestampType", pc.fill_null(batch.column(kind), 0))
        for record in table.to_pylist():
            record["headers"] = record.get("headers") or []
            yield record


def _chain(first: dict[str, Any], rest: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    yield first
    yield from rest
