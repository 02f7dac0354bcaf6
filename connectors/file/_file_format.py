"""What a file format is: the interface each format module implements, and what they share.

:mod:`connectors.file.formats` names the formats; each lives in its own module
(``_text``, ``_jsonl``, ``_parquet``, ``_avro``) and builds on this one, so
that the table of formats imports the formats and nothing imports the table back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

    from smt.connector import ReadTask

from connectors.file._lines import MAX_LINE_BYTES
from smt.errors import SmtError

__all__ = ["FileFormat", "OutputExistsError", "ReadOptions", "spark_save_mode"]


class OutputExistsError(SmtError):
    """A batch write found its output folder already there, with write mode ``errorifexists``."""


class ReadOptions:
    """What a format needs to know to read: where, the default topic, streaming knobs."""

    def __init__(
        self,
        path: str,
        topic: str,
        streaming: bool = False,
        max_files_per_trigger: int = 0,
        where: str = "source.path",
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.path = path
        self.topic = topic
        self.streaming = streaming
        self.max_files_per_trigger = max_files_per_trigger
        self.where = where
        #: The longest line a line-based format's Python tasks read (``source.line.max.bytes``).
        self.max_line_bytes = max_line_bytes

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
