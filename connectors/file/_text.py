"""``text``: one line = one record value, like Kafka Connect's FileStreamSource/Sink.

Reading, a line becomes a value (its UTF-8 bytes) with no key and no headers;
the offset is a unique increasing id in batch mode (null when streaming: Spark
has no row ids in streams) and the timestamp the read time.

A batch read of local files happens in the pipeline's Python tasks
(:meth:`TextFormat.read_tasks`, see :mod:`connectors.read_tasks`): lines end
with ``\n`` or ``\r\n`` and their bytes are kept exactly.  Streaming, and
paths Spark must list itself (URIs, globs, compressed files), use Spark's text
reader, told to read alike: lines end with ``\n`` or ``\r\n``, and their bytes are
kept exactly (not decoded: a byte that is not UTF-8 stays).
Writing, each value is one line (a null value is an empty line); keys,
headers and metadata are not kept.  A value that contains a line break (``\n``
or ``\r``) cannot be written: it would be read back as several records, so it
fails on its own at the TASK_PUT stage (``errors.tolerance=none`` stops the
run naming it; ``all`` sends it to the dead-letter queue) — see
:func:`line_break_errors`.
"""

from __future__ import annotations

import time
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from connectors.file._file_format import FileFormat, ReadOptions, spark_save_mode
from connectors.file._lines import line_number, read_lines
from connectors.file._splits import FileSplit, max_split_bytes, pack_splits, split_files
from connectors.read_tasks import constant_strings, kafka_batch
from smt.connector import ReadTask, SinkRecordError

#: Row ids as Spark's monotonically_increasing_id makes them: the task index in the upper bits.
_TASK_ID_SHIFT = 33


def spark_lines(spark, options: ReadOptions):
    """The lines of ``options.path`` read by Spark's text reader as the Python tasks read them: a ``line``
    column of their bytes as they are (a cast, not an encoding), cut at ``\n`` without the ``\r`` of a
    ``\r\n`` (Spark's default would cut at a lone ``\r`` too)."""
    from pyspark.sql import functions as F

    lines = options.reader(spark).format("text").option("lineSep", "\n").load(options.path)
    line = F.col("value").cast("binary")
    cut = F.when(F.col("value").endswith("\r"), line.substr(F.lit(1), F.length(line) - 1)).otherwise(line)
    return lines.select(cut.alias("line"))


class TextFormat(FileFormat):
    """One line = one record value (UTF-8); keys, headers and metadata are not kept."""

    name = "text"

    def read(self, spark, options: ReadOptions):
        from pyspark.sql import functions as F

        lines = spark_lines(spark, options)
        offset = F.lit(None).cast("long") if options.streaming else F.monotonically_increasing_id()
        return lines.select(
            F.lit(None).cast("binary").alias("key"),
            F.col("line").alias("value"),
            F.lit(options.topic).alias("topic"),
            F.lit(0).alias("partition"),
            offset.alias("offset"),
            F.current_timestamp().alias("timestamp"),
            F.lit(0).alias("timestampType"),
            # An empty array, not null: Spark hands a null array<struct> to Arrow many times slower.
            F.array().cast("array<struct<key:string,value:binary>>").alias("headers"),
        )

    def read_tasks(self, options, files, parallelism, max_partition_bytes):
        size = max_split_bytes(sum(n for _, n in files), len(files), parallelism, max_partition_bytes)
        read_at = int(time.time() * 1_000_000)
        pieces = pack_splits(split_files(files, size), size)
        return [
            _TextReadTask(task, options.topic, read_at, index, options.max_line_bytes)
            for index, task in enumerate(pieces)
        ]

    def write(self, df, path, mode):
        from pyspark.sql import functions as F

        lines = df.select(F.coalesce(F.col("value").cast("string"), F.lit("")).alias("value"))
        lines.write.mode(spark_save_mode(mode)).format("text").save(path)


class _TextReadTask(ReadTask):
    """Pieces of text files, one record per line, read in a Python task."""

    def __init__(
        self, splits: list[FileSplit], topic: str, read_at_micros: int, index: int, max_line_bytes: int
    ) -> None:
        self.splits = splits
        self.max_line_bytes = max_line_bytes
        self.topic = topic
        self.read_at_micros = read_at_micros
        self.index = index
        #: (first offset, split) of each split read so far: where a failed record's line is found.
        self._read: list[tuple[int, FileSplit]] = []

    def batches(self, max_rows: int) -> Iterator[pa.RecordBatch]:
        next_offset = self.index << _TASK_ID_SHIFT
        for split in self.splits:
            self._read.append((next_offset, split))
            for lines in read_lines(split.path, split.start, split.end, max_line_bytes=self.max_line_bytes):
                for start in range(0, len(lines), max_rows):
                    values = lines.slice(start, max_rows)
                    yield self._records(values, next_offset)
                    next_offset += len(values)

    def locate(self, offset: int) -> str | None:
        split_offset, split = next(((first, split) for first, split in reversed(self._read) if first <= offset),
                                   (None, None))  # fmt: skip
        if split is None:
            return None
        return f"line {line_number(split.path, split.start, offset - split_offset):,} of {split.path}"

    def _records(self, values: pa.Array, first_offset: int) -> pa.RecordBatch:
        length = len(values)
        zeros = pa.array(np.zeros(length, dtype=np.int32))
        return kafka_batch(
            length,
            value=values,
            topic=constant_strings(self.topic, length),
            partition=zeros,
            offset=pa.array(np.arange(first_offset, first_offset + length, dtype=np.int64)),
            timestamp=pa.array(np.full(length, self.read_at_micros, dtype=np.int64)).cast(pa.timestamp("us")),
            timestampType=zeros,
        )


def line_break_errors(records: pa.RecordBatch) -> list[tuple[int, BaseException]]:
    """``(row, error)`` for each value with a line break: one line per value cannot hold it."""
    values = records.column("value")
    if not _may_hold_line_breaks(values):
        return []
    broken = pc.fill_null(pc.match_substring_regex(values, "[\r\n]"), False).to_numpy(zero_copy_only=False)
    errors: list[tuple[int, BaseException]] = []
    for row in np.flatnonzero(broken):
        value = values[int(row)].as_py()
        at = min(index for index in (value.find(b"\n"), value.find(b"\r")) if index >= 0)
        errors.append(
            (
                int(row),
                SinkRecordError(
                    f"the value has a line break at byte {at}; the text format writes one value per line, so it "
                    f"would be read back as several records (use format=jsonl, or remove the line breaks with a transform)"
                ),
            )
        )
    return errors


def _may_hold_line_breaks(values: pa.Array) -> bool:
    """False when no byte of the column's data is a line break (one scan of the whole buffer)."""
    data = values.buffers()[2]
    if data is None:
        return False
    scanned = data.to_pybytes()  # one memcpy; bytes.find is memchr, faster than numpy's compares
    return scanned.find(b"\n") >= 0 or scanned.find(b"\r") >= 0
