"""Reads records from files (``source=file``)."""

from __future__ import annotations

import os

from connectors.base import Source
from connectors.file.formats import FORMATS, known_formats
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance
from smt.errors import SmtError


class FileSource(Source):
    """Reads files into records with Spark's file sources; one line per record for ``text``."""

    name = "file"
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
    )

    def read(self, spark, streaming=False):
        path = self.config["path"]
        if not streaming and not os.path.exists(path) and "://" not in path:
            raise SmtError(f"{self.context.prefix}path: cannot read '{path}': no such file or directory")
        topic = self.config["topic"] or os.path.splitext(os.path.basename(path.rstrip("/")))[0]
        return FORMATS[self.config["format"]].read(spark, path, topic, streaming)
