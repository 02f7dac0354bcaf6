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

Both directions are Spark's own JSON source and sink with a fixed schema: no
Python on the hot path.  A malformed line does not stop the read: it becomes a
record whose value is the line as read, marked with a source error naming the
file, so the pipeline fails it at the TASK_POLL stage like any other failed
record (``errors.tolerance=none`` stops the run; ``all`` skips it or sends it
to the dead-letter queue).
"""

from __future__ import annotations

from connectors.file.formats import FileFormat, ReadOptions, spark_save_mode
from smt.pipeline.processor import SOURCE_ERROR_COLUMN

#: Spark's column for a line it could not parse (PERMISSIVE mode).
_CORRUPT = "_corrupt_record"

#: The schema of one line; ``*_base64`` carry bytes that are not valid UTF-8.
JSONL_SCHEMA_DDL = (
    "topic string, partition int, offset long, timestamp long, timestampType int, "
    "key string, key_base64 string, value string, value_base64 string, "
    "headers array<struct<key:string,value:string,value_base64:string>>"
)


class JsonLinesFormat(FileFormat):
    """Whole records as JSON lines; non-UTF-8 bytes as ``<field>_base64``."""

    name = "jsonl"

    def read(self, spark, options: ReadOptions):
        from pyspark.sql import functions as F

        lines = (
            options.reader(spark)
            .schema(f"{JSONL_SCHEMA_DDL}, {_CORRUPT} string")
            .option("mode", "PERMISSIVE")
            .option("columnNameOfCorruptRecord", _CORRUPT)
            .format("json")
            .load(options.path)
        )
        corrupt = F.col(_CORRUPT)
        return lines.select(
            _bytes_from(F.col("key"), F.col("key_base64")).alias("key"),
            F.when(corrupt.isNotNull(), F.encode(corrupt, "UTF-8"))
            .otherwise(_bytes_from(F.col("value"), F.col("value_base64"))).alias("value"),
            F.coalesce(F.col("topic"), F.lit(options.topic)).alias("topic"),
            F.col("partition"),
            F.col("offset"),
            F.timestamp_millis(F.col("timestamp")).alias("timestamp"),
            F.coalesce(F.col("timestampType"), F.lit(0)).alias("timestampType"),
            F.coalesce(
                F.transform(
                    F.col("headers"),
                    lambda h: F.struct(h["key"].alias("key"), _bytes_from(h["value"], h["value_base64"]).alias("value")),
                ),
                F.array().cast("array<struct<key:string,value:binary>>"),
            ).alias("headers"),
            F.when(corrupt.isNotNull(), F.concat(F.lit("malformed JSON line in "), F.input_file_name()))
            .alias(SOURCE_ERROR_COLUMN),
        )

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


def _bytes_from(text, base64_text):
    from pyspark.sql import functions as F

    return F.coalesce(F.unbase64(base64_text), F.encode(text, "UTF-8"))


def _text_or_base64(column, name: str):
    from pyspark.sql import functions as F

    utf8 = F.is_valid_utf8(column)
    return (
        F.when(utf8, column.cast("string")).alias(name),
        F.when(~utf8, F.base64(column)).alias(f"{name}_base64"),
    )
