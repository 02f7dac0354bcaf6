"""Writes records to files (``sink=file``)."""

from __future__ import annotations

from connectors.base import Sink
from connectors.file.formats import FORMATS, known_formats
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, one_of


class FileSink(Sink):
    """Writes records as files with Spark's file sinks: a directory of part files."""

    name = "file"
    config_def = (
        ConfigDef()
        .define("path", ConfigType.STRING, REQUIRED, None, Importance.HIGH,
                "Output directory. Relative paths resolve against the pipeline file's folder.")
        .define("format", ConfigType.STRING, "text", known_formats, Importance.HIGH,
                "File format: " + ", ".join(sorted(FORMATS)) + ".")
        .define("write.mode", ConfigType.STRING, "errorifexists",
                one_of("errorifexists", "overwrite", "append", "ignore"), Importance.MEDIUM,
                "What to do when the output exists (Spark's save modes), in batch mode.")
    )

    def write(self, df, batch_id=None):
        fmt = FORMATS[self.config["format"]]
        if batch_id is None:
            fmt.write(df, self.config["path"], self.config["write.mode"])
        else:
            fmt.write_stream_batch(df, self.config["path"])
