"""``text``: one line = one record value, like Kafka Connect's FileStreamSource/Sink.

Reading, a line becomes a value (its UTF-8 bytes) with no key and no headers;
the offset is a unique increasing id in batch mode (null when streaming: Spark
has no row ids in streams) and the timestamp the read time.
Writing, each value is one line (a null value is an empty line); keys,
headers and metadata are not kept.  A value that contains a line break (``\n``
or ``\r``) cannot be written: it would be read back as several records, so it
fails on its own at the TASK_PUT stage (``errors.tolerance=none`` stops the
run naming it; ``all`` sends it to the dead-letter queue) — see
:func:`line_break_errors`.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from connectors.base import SinkRecordError
from connectors.file.formats import FileFormat, ReadOptions


class TextFormat(FileFormat):
    """One line = one record value (UTF-8); keys, headers and metadata are not kept."""

    name = "text"

    def read(self, spark, options: ReadOptions):
        from pyspark.sql import functions as F

        lines = options.reader(spark).format("text").load(options.path)
        offset = F.lit(None).cast("long") if options.streaming else F.monotonically_increasing_id()
        return lines.select(
            F.lit(None).cast("binary").alias("key"),
            F.encode(F.col("value"), "UTF-8").alias("value"),
            F.lit(options.topic).alias("topic"),
            F.lit(0).alias("partition"),
            offset.alias("offset"),
            F.current_timestamp().alias("timestamp"),
            F.lit(0).alias("timestampType"),
            # An empty array, not null: Spark hands a null array<struct> to Arrow many times slower.
            F.array().cast("array<struct<key:string,value:binary>>").alias("headers"),
        )

    def write(self, df, path, mode):
        from pyspark.sql import functions as F

        lines = df.select(F.coalesce(F.col("value").cast("string"), F.lit("")).alias("value"))
        lines.write.mode(mode).format("text").save(path)


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
        errors.append((int(row), SinkRecordError(
            f"the value has a line break at byte {at}; the text format writes one value per line, so it "
            f"would be read back as several records (use format=jsonl, or remove the line breaks with a transform)"
        )))
    return errors


def _may_hold_line_breaks(values: pa.Array) -> bool:
    """False when no byte of the column's data is a line break (one scan of the whole buffer)."""
    data = values.buffers()[2]
    if data is None:
        return False
    scanned = data.to_pybytes()  # one memcpy; bytes.find is memchr, faster than numpy's compares
    return scanned.find(b"\n") >= 0 or scanned.find(b"\r") >= 0
