"""How each file format maps to and from Spark's Kafka row layout.

A format knows how to read files into Kafka-layout rows and how to write
Kafka-layout rows out.  ``text`` is Kafka Connect's FileStreamSource/Sink:
one line is one record value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from smt.record import KAFKA_ROW_FIELDS

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession


class FileFormat:
    """One file format: ``read`` gives Kafka-layout rows, ``write`` takes them."""

    name: str = ""

    def read(self, spark: "SparkSession", path: str, topic: str, streaming: bool) -> "DataFrame":
        raise NotImplementedError

    def write(self, df: "DataFrame", path: str, mode: str) -> None:
        raise NotImplementedError

    def write_stream_batch(self, df: "DataFrame", path: str) -> None:
        """Append one streaming micro-batch."""
        self.write(df, path, "append")


class TextFormat(FileFormat):
    """One line = one record value (UTF-8); keys, headers and metadata are not kept."""

    name = "text"

    def read(self, spark, path, topic, streaming):
        from pyspark.sql import functions as F

        reader = spark.readStream if streaming else spark.read
        lines = reader.format("text").load(path)
        return lines.select(
            F.lit(None).cast("binary").alias("key"),
            F.encode(F.col("value"), "UTF-8").alias("value"),
            F.lit(topic).alias("topic"),
            F.lit(0).alias("partition"),
            F.monotonically_increasing_id().alias("offset"),
            F.current_timestamp().alias("timestamp"),
            F.lit(0).alias("timestampType"),
            F.lit(None).cast("array<struct<key:string,value:binary>>").alias("headers"),
        )

    def write(self, df, path, mode):
        from pyspark.sql import functions as F

        lines = df.select(F.coalesce(F.col("value").cast("string"), F.lit("")).alias("value"))
        lines.write.mode(mode).format("text").save(path)


FORMATS: dict[str, FileFormat] = {fmt.name: fmt for fmt in (TextFormat(),)}


def kafka_columns() -> tuple[str, ...]:
    return KAFKA_ROW_FIELDS


def format_named(name: str, key: str) -> FileFormat:
    from smt.errors import ConfigError

    fmt = FORMATS.get(name)
    if fmt is None:
        raise ConfigError.for_key(key, f"unknown file format '{name}'; known: {', '.join(sorted(FORMATS))}", name)
    return fmt


def known_formats(value: Any) -> None:
    if value not in FORMATS:
        raise ValueError(f"unknown file format '{value}'; known: {', '.join(sorted(FORMATS))}")
