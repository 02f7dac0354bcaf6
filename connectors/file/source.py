"""Reads records from files (``source=file``)."""

from __future__ import annotations

import glob
import os
import re

from connectors.file._lines import MAX_LINE_BYTES
from connectors.file._splits import list_files
from connectors.file.formats import FORMAT_CONFIG, FORMATS, ReadOptions
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, at_least, between, one_of
from smt.connector import Source
from smt.errors import ConfigError, SmtError
from smt.sessions import default_parallelism


class FileSource(Source):
    """Reads files into records (text, jsonl, parquet or avro), in batch or as a stream.

    Streaming uses Spark's file stream source: new files that appear in the
    directory are picked up; each file is read once (tracked in the checkpoint).
    """

    name = "file"
    aliases = ("FileStreamSource", "org.apache.kafka.connect.file.FileStreamSourceConnector")
    supports_streaming = True
    checkpoint_keys = ("path",)
    config_def = (
        ConfigDef()
        .define(
            "path",
            ConfigType.PATH,
            REQUIRED,
            None,
            Importance.HIGH,
            "File or directory to read. Relative paths resolve against the pipeline file's folder.",
        )
        .merge(FORMAT_CONFIG)
        .define(
            "topic",
            ConfigType.STRING,
            "",
            None,
            Importance.MEDIUM,
            "Topic given to records read (formats that store the topic keep their own). "
            "Default: the file or directory name without extension.",
        )
        .define(
            "max.files.per.trigger",
            ConfigType.INT,
            0,
            at_least(0),
            Importance.LOW,
            "Streaming: at most this many new files per micro-batch (0 = no limit).",
        )
        .define(
            "line.max.bytes",
            ConfigType.LONG,
            MAX_LINE_BYTES,
            between(1, 2**31 - 1, "Arrow's binary values hold less than 2 GiB"),
            Importance.LOW,
            "text and jsonl read by the pipeline's Python tasks: the longest line read. A longer one fails the "
            "run as soon as that many of its bytes are read, naming the file and the line.",
        )
        .define(
            "reader",
            ConfigType.STRING,
            "auto",
            one_of("auto", "spark"),
            Importance.LOW,
            "Who reads the files in a batch run. auto: the pipeline's own Python tasks read them "
            "with Arrow and transform them where they are read, when the format allows it "
            "(text, parquet) and the path is a local file or folder; otherwise Spark's reader. "
            "spark: always Spark's reader.",
        )
    )

    def configure(self, configs, context=None):
        super().configure(configs, context)
        # Checked here too, so that `smt validate` reports a missing input.
        reason = _unreadable(self.config["path"])
        if reason:
            raise ConfigError.for_key(f"{self.context.prefix}path", reason, self.config["path"])

    def read(self, spark, streaming=False):
        return FORMATS[self.config["format"]].read(spark, self._options(streaming))

    @classmethod
    def compiled_form(cls) -> str:
        """What the compiled path reads with Spark (:class:`smt.compiled.CompiledStage`)."""
        alike, unfailed = ", ".join(sorted(_SPARK_READS_ALIKE)), ", ".join(sorted(_SPARK_READS_ALIKE_UNFAILED))
        return f"format {alike}; {unfailed} in a write not split between the compiled path and Python (an upsert)"

    def compiled_problem(self, split: bool = True) -> str | None:
        """Why the pipeline's compiled path may not read these files with Spark (see :mod:`smt.compiled`);
        ``split``: in a write whose other records Python takes, read by Spark too."""
        fmt = self.config["format"]
        if fmt in _SPARK_READS_ALIKE or (fmt in _SPARK_READS_ALIKE_UNFAILED and not split):
            return None
        return f"{self.context.prefix}format={fmt}: Spark's reader is not the Python tasks' reader"

    def input_paths(self):
        return {f"{self.context.prefix}path": self.config["path"]}

    def read_tasks(self, spark):
        if self.config["reader"] == "spark":
            return None
        options = self._options(False)
        files = list_files(options.path)
        if files is None:
            return None
        max_partition_bytes = _bytes(spark.conf.get("spark.sql.files.maxPartitionBytes", "128m"))
        parallelism = default_parallelism(spark)
        return FORMATS[self.config["format"]].read_tasks(options, files, parallelism, max_partition_bytes)

    def _options(self, streaming: bool) -> ReadOptions:
        path = self.config["path"]
        reason = _unreadable(path)
        if reason:  # it was there when the pipeline was built
            raise SmtError(f"{self.context.prefix}path: {reason}")
        topic = self.config["topic"] or os.path.splitext(os.path.basename(path.rstrip("/")))[0]
        return ReadOptions(
            path,
            topic,
            streaming,
            self.config["max.files.per.trigger"],
            where=f"{self.context.prefix}path",
            max_line_bytes=self.config["line.max.bytes"],
        )


#: Formats whose Spark reader gives the records the Python tasks read (tests/connectors/file/test_read_tasks.py),
#: or that have no Python tasks.
_SPARK_READS_ALIKE = {"text", "parquet", "avro"}
#: Formats whose Spark reader gives the records the Python tasks read, except that the error of a line it
#: cannot read does not name the line: read by Spark only in a bet that every record is compiled, which
#: such a line loses (then the Python tasks read every record).
_SPARK_READS_ALIKE_UNFAILED = {"jsonl"}


def _unreadable(path: str) -> str | None:
    """Why the local ``path`` cannot be read, or ``None`` (remote paths are Spark's to report)."""
    if "://" in path or "{" in path:
        # Remote file systems, and Hadoop globs with alternatives: Spark reports
        # a path that does not exist or a pattern that matches nothing.
        return None
    if glob.has_magic(path):
        return None if glob.glob(path) else f"cannot read '{path}': no file matches the pattern"
    if not os.path.exists(path):
        return f"cannot read '{path}': no such file or directory"
    if not os.access(path, os.R_OK):
        return f"cannot read '{path}': permission denied"
    return None


_BYTE_SIZE = re.compile(r"\s*(\d+)\s*([kmgtp]?)b?\s*", re.IGNORECASE)


def _bytes(setting: str) -> int:
    """A Spark byte-size setting (``134217728``, ``128m``, ``1gb``) in bytes."""
    match = _BYTE_SIZE.fullmatch(setting)
    if match is None:
        raise SmtError(f"spark.sql.files.maxPartitionBytes: not a byte size: '{setting}'")
    return int(match.group(1)) << (10 * " kmgtp".index(match.group(2).lower() or " "))
