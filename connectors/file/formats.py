"""The file formats, by name: how each maps files to and from Kafka row layout.

A format knows how to read files into Kafka-layout rows (a batch or a
streaming DataFrame) and how to write Kafka-layout rows out as a directory of
part files (the interface: :mod:`connectors.file._file_format`).  The
formats themselves live one per module:

- ``text``: one line = one record value (Kafka Connect's FileStreamSource/Sink);
- ``jsonl``: one JSON object per line holding the whole record;
- ``parquet``: Spark's Parquet files, one row per record in Kafka row layout;
- ``avro``: Avro container files of ``kafka_record.avsc``, through fastavro.
"""

from __future__ import annotations

from typing import Any

from connectors.file._avro import AvroFormat
from connectors.file._file_format import FileFormat, OutputExistsError, ReadOptions, spark_save_mode
from connectors.file._jsonl import JsonLinesFormat
from connectors.file._parquet import ParquetFormat
from connectors.file._text import TextFormat
from smt.config import ConfigDef, ConfigType, Importance

__all__ = [
    "FORMATS",
    "FORMAT_CONFIG",
    "FileFormat",
    "OutputExistsError",
    "ReadOptions",
    "known_formats",
    "spark_save_mode",
]


FORMATS: dict[str, FileFormat] = {
    fmt.name: fmt for fmt in (TextFormat(), JsonLinesFormat(), ParquetFormat(), AvroFormat())
}


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
