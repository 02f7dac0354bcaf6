"""Writes records to files (``sink=file``)."""

from __future__ import annotations

from connectors.base import Sink
from connectors.file._micro_batch import write_micro_batch
from connectors.file.formats import FORMATS, known_formats
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, one_of


class FileSink(Sink):
    """Writes records as a directory of part files (text, jsonl, parquet or avro).

    In batch mode the directory is written with Spark's save modes.  In
    streaming mode each micro-batch is committed exactly once, even when the
    job is killed and restarted: see :mod:`connectors.file._micro_batch`.
    """

    name = "file"
    aliases = ("FileStreamSink", "org.apache.kafka.connect.file.FileStreamSinkConnector")
    config_def = (
        ConfigDef()
        .define("path", ConfigType.STRING, REQUIRED, None, Importance.HIGH,
                "Output directory. Relative paths resolve against the pipeline file's folder.")
        .define("format", ConfigType.STRING, "text", known_formats, Importance.HIGH,
                "File format: " + ", ".join(sorted(FORMATS)) + ".")
        .define("write.mode", ConfigType.STRING, "errorifexists",
                one_of("errorifexists", "overwrite", "append", "ignore"), Importance.MEDIUM,
                "What to do when the output exists (Spark's save modes), in batch mode. "
                "Streaming always adds to the directory.")
    )

    def output_fields(self):
        # One line per value: nothing else of the record reaches a text file.
        return frozenset({"value"}) if self.config["format"] == "text" else None

    def write(self, df, batch_id=None):
        fmt = FORMATS[self.config["format"]]
        if batch_id is None:
            fmt.write(df, self.config["path"], self.config["write.mode"])
        else:
            write_micro_batch(fmt, df, self.config["path"], batch_id)
