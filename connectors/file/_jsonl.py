"""``jsonl``: one JSON object per line, holding the whole record.

One line looks like::

    {"topic":"orders","partition":0,"offset":42,"timestamp":1700000000000,
     "timestampType":0,"key":"user-1","value":"{\\"amount\\":3}",
     "headers":[{"key":"trace","value":"abc"},{"key":"raw","value_base64":"/w=="}]}

- ``timestamp`` is epoch milliseconds (Kafka's record timestamp).
- Bytes (``key``, ``value``, a header's ``value``) are written as a JSON string
  when they are valid UTF-8, and otherwise base64-encoded under the same name
  with ``_base64`` appended (``key_base64``, ``value_base64``): the two never
  appear together.  A field that is absent (or JSON ``null``) is null.
- Reading, a line may use either form; a missing ``topic`` takes the source's
  ``topic`` setting.

Reading, each line is parsed on its own terms (:mod:`connectors.file._jsonl_lines`):
a malformed line does not stop the read: it becomes a record whose value is
the line as read, marked with a source error naming the file and the line
number, so the pipeline fails it at the TASK_POLL stage like any other failed
record (``errors.tolerance=none`` stops the run; ``all`` skips it or sends it
to the dead-letter queue).  A batch read of local files happens in the
pipeline's Python tasks (:meth:`JsonLinesFormat.read_tasks`), lines cut as
for ``text``; streaming and paths Spark must list itself read the lines with
Spark's text reader and parse them in a Python step before the pipeline's
(there the error names the file but not the line number, which Spark does
not know).  Writing is Spark's own JSON sink with a fixed schema.
"""

from __future__ import annotations

import functools
from typing import Iterator

import pyarrow as pa

from connectors.file._file_format import FileFormat, ReadOptions, spark_save_mode
from connectors.file._jsonl_lines import parse_jsonl_lines
from connectors.file._lines import read_lines
from connectors.file._splits import FileSplit, max_split_bytes, pack_splits, split_files
from connectors.file._text import spark_lines
from smt.connector import SOURCE_ERROR_COLUMN, ReadTask
from smt.record import KAFKA_ROW_SCHEMA_DDL

#: What a jsonl read gives: Kafka rows, and the error of each line that could not be read.
_READ_SCHEMA_DDL = f"{KAFKA_ROW_SCHEMA_DDL}, {SOURCE_ERROR_COLUMN} string"


class JsonLinesFormat(FileFormat):
    """Whole records as JSON lines; non-UTF-8 bytes as ``<field>_base64``."""

    name = "jsonl"

    def read(self, spark, options: ReadOptions):
        from pyspark.sql import functions as F

        # The lines' bytes exactly as the Python tasks read them (Spark does not check UTF-8 here).
        lines = spark_lines(spark, options).select("line", F.input_file_name().alias("file"))
        return lines.mapInArrow(functools.partial(_parse_batches, options.topic), _READ_SCHEMA_DDL)

    def read_tasks(self, options, files, parallelism, max_partition_bytes):
        size = max_split_bytes(sum(n for _, n in files), len(files), parallelism, max_partition_bytes)
        pieces = pack_splits(split_files(files, size), size)
        return [_JsonLinesReadTask(task, options.topic, options.max_line_bytes) for task in pieces]

    def write(self, df, path, mode):
        from pyspark.sql import functions as F

        lines = df.select(
            "topic",
            "partition",
            "offset",
            F.unix_millis(F.col("timestamp")).alias("timestamp"),
            "timestampType",
            *_text_or_base64(F.col("key"), "key"),
            *_text_or_base64(F.col("value"), "value"),
            F.transform(
                F.col("headers"),
                lambda h: F.struct(h["key"].alias("key"), *_text_or_base64(h["value"], "value")),
            ).alias("headers"),
        )
        # Null fields are left out of the line (Spark's default), so exactly one
        # of value / value_base64 appears for a non-null value.
        lines.write.mode(spark_save_mode(mode)).option("ignoreNullFields", "true").format("json").save(path)


def _text_or_base64(column, name: str):
    from pyspark.sql import functions as F

    utf8 = F.is_valid_utf8(column)
    return (
        F.when(utf8, column.cast("string")).alias(name),
        F.when(~utf8, F.base64(column)).alias(f"{name}_base64"),
    )


def _parse_batches(topic: str, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Spark's lines (``line``, ``file``) parsed into records; Spark does not say which line of the file."""
    for batch in batches:
        yield parse_jsonl_lines(
            batch.column("line"), topic, batch.column("file"), lambda row: None, SOURCE_ERROR_COLUMN
        )


class _JsonLinesReadTask(ReadTask):
    """Pieces of jsonl files, read and parsed in a Python task; errors name the file and line."""

    def __init__(self, splits: list[FileSplit], topic: str, max_line_bytes: int) -> None:
        self.splits = splits
        self.topic = topic
        self.max_line_bytes = max_line_bytes

    def batches(self, max_rows: int) -> Iterator[pa.RecordBatch]:
        for split in self.splits:
            numbers = _LineNumbers(split)
            for lines in read_lines(split.path, split.start, split.end, max_line_bytes=self.max_line_bytes):
                for start in range(0, len(lines), max_rows):
                    first = numbers.seen
                    piece = lines.slice(start, max_rows)
                    numbers.seen += len(piece)
                    yield parse_jsonl_lines(
                        piece,
                        self.topic,
                        split.path,
                        lambda row: numbers.of(first + row),  # noqa: B023 - called before the loop moves on
                        SOURCE_ERROR_COLUMN,
                    )


class _LineNumbers:
    """Line numbers in the file of a piece's lines, counted only when an error needs one."""

    def __init__(self, split: FileSplit) -> None:
        self.split = split
        self.seen = 0  # lines of the piece handed out so far
        self._before: int | None = None

    def of(self, index: int) -> int:
        """The 1-based line number of the piece's ``index``-th line."""
        if self._before is None:
            self._before = _lines_before(self.split.path, self.split.start)
        return self._before + index + 1


def _lines_before(path: str, start: int) -> int:
    """How many lines of ``path`` precede the first line a piece starting at ``start`` owns."""
    if start == 0:
        return 0
    # The piece's first line begins after the first line break at or past `start - 1`.
    count = 0
    with open(path, "rb") as handle:
        remaining = start - 1
        while remaining > 0:
            chunk = handle.read(min(remaining, 8 << 20))
            if not chunk:
                break
            count += chunk.count(b"\n")
            remaining -= len(chunk)
    return count + 1
