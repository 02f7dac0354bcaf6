"""Reads records from files (``source=file``)."""

from __future__ import annotations

import os

from connectors.base import Source
from connectors.file.formats import FORMATS, ReadOptions, known_formats
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, at_least
from smt.errors import SmtError


class FileSource(Source):
    """Reads files into records (text, jsonl, parquet or avro), in batch or as a stream.

    Streaming uses Spark's file stream source: new files that appear in the
    directory are picked up; each file is read once (tracked in the checkpoint).
    """

    name = "file"
    aliases = ("FileStreamSource", "org.apache.kafka.connect.file.FileStreamSourceConnector")
    supports_streaming = True
    config_def = (
        ConfigDef()
        .define("path", ConfigType.STRING, REQUIRED, None, Importance.HIGH,
                "File or directory to read. Relative paths resolve against the pipeline file's folder.")
        .define("format", ConfigType.STRING, "text", known_formats, Importance.HIGH,
                "File format: " + ", ".join(sorted(FORMATS)) + ".")
        .define("topic", ConfigType.STRING, "", None, Importance.MEDIUM,
                "Topic given to records read (formats that store the topic keep their own). "
                "Default: the file or directory name without extension.")
        .define("max.files.per.trigger", ConfigType.INT, 0, at_least(0), Importance.LOW,
                "Streaming: at most this many new files per micro-batch (0 = no limit).")
    )

    def read(self, spark, streaming=False):
        path = self.config["path"]
        self._check_readable(path)
        topic = self.config["topic"] or os.path.splitext(os.path.basename(path.rstrip("/")))[0]
        options = ReadOptions(path, topic, streaming, self.config["max.files.per.trigger"],
                              where=f"{self.context.prefix}path")
        return FORMATS[self.config["format"]].read(spark, options)

    def _check_readable(self, path: str) -> None:
        if "://" in path:
            return  # Spark's file system reports remote paths itself.
        where = f"{self.context.prefix}path"
        if not os.path.exists(path):
            raise SmtError(f"{where}: cannot read '{path}': no such file or directory")
        if not os.access(path, os.R_OK):
            raise SmtError(f"{where}: cannot read '{path}': permission denied")
