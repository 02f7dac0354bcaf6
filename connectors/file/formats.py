"""The file formats, by name: how each maps files to and from Kafka row layout.

A format knows how to read files into Kafka-layout rows (a batch or a
streaming DataFrame) and how to write Kafka-layout rows out as a directory of
part files.  The formats themselves live one per module:

- ``text``: one line = one record value (Kafka Connect's FileStreamSource/Sink);
- ``jsonl``: one JSON object per line holding the whole record;
- ``parquet``: Spark's Parquet files, one row per record in Kafka row layout;
- ``avro``: Avro container files of ``kafka_record.avsc``, through fastavro.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

    from smt.connector import ReadTask

from smt.config import ConfigDef, ConfigType, Importance
from smt.errors import SmtError

__all__ = [
    "FORMATS",
    "FORMAT_CONFIG",
    "FileFormat",
    "OutputExistsError",
    "ReadOptions",
    "known_formats",
    "spark_save_mode",
]


class OutputExistsError(SmtError):
    """A batch write found its output folder already there, with write mode ``errorifexists``."""


class ReadOptions:
    """What a format needs to know to read: where, the default topic, streaming knobs."""

    def __init__(
        self, path: str, topic: str, streaming: bool = False, max_files_per_trigger: int = 0, where: str = "source.path"
    ) -> None:
        self.path = path
        self.topic = topic
        self.streaming = streaming
        self.max_files_per_trigger = max_files_per_trigger
        self.where = where

    def reader(self, spark: "SparkSession"):
        """Spark's batch or streaming reader, with the streaming options set."""
        if not self.streaming:
            return spark.read
        reader = spark.readStream
        if self.max_files_per_trigger:
            reader = reader.option("maxFilesPerTrigger", str(self.max_files_per_trigger))
        return reader


class FileFormat:
    """One file format: ``read`` gives Kafka-layout rows, ``write`` takes them."""

    name: str = ""

    def read(self, spark: "SparkSession", options: ReadOptions) -> "DataFrame":
        raise NotImplementedError

    def read_tasks(
        self, options: ReadOptions, files: list[tuple[str, int]], parallelism: int, max_partition_bytes: int
    ) -> "list[ReadTask] | None":
        """``files`` (path, size) of a batch read cut into read tasks for Python workers, or ``None``
        to read with Spark.

        ``parallelism`` is the number of cores to keep busy and
        ``max_partition_bytes`` the largest piece of a file one task reads
        (Spark's ``spark.sql.files.maxPartitionBytes``).
        """
        return None

    def write(self, df: "DataFrame", path: str, mode: str) -> None:
        """Write ``df`` to the directory ``path`` with Spark's save ``mode``."""
        raise NotImplementedError


def spark_save_mode(mode: str) -> str:
    """``write.mode`` as both kinds of session take it: Spark Connect knows ``errorifexists`` only as ``error``."""
    return "error" if mode == "errorifexists" else mode


def _all_formats() -> dict[str, FileFormat]:
    from connectors.file._avro import AvroFormat
    from connectors.file._jsonl import JsonLinesFormat
    from connectors.file._parquet import ParquetFormat
    from connectors.file._text import TextFormat

    return {fmt.name: fmt for fmt in (TextFormat(), JsonLinesFormat(), ParquetFormat(), AvroFormat())}


FORMATS: dict[str, FileFormat] = _all_formats()


def known_formats(value: Any) -> None:
    if value not in FORMATS:
        raise ValueError(f"unknown file format '{value}'; known: {', '.join(sorted(FORMATS))}")


#: The ``format`` key, the same for the file source and the file sink.
FORMAT_CONFIG = ConfigDef().define(
    "format",
    ConfigType.STRING,
    "text",
    known_formats,
    Importance.HIGH,
    "File format: " + ", ".join(sorted(FORMATS)) + ".",
)
