"""Writes records to files (``sink=file``)."""

from __future__ import annotations

from connectors.file._avro_checks import avro_record_errors
from connectors.file._micro_batch import QueryCommits
from connectors.file._output_folder import already_exists, existing_output
from connectors.file._text import line_break_errors
from connectors.file.formats import FORMAT_CONFIG, FORMATS, OutputExistsError
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, one_of
from smt.connector import Sink, SinkContext
from smt.connector_roles import RecordChecks
from smt.errors import SmtError


class FileSink(Sink, RecordChecks):
    """Writes records as a directory of part files (text, jsonl, parquet or avro).

    In batch mode the directory is written with Spark's save modes.  In
    streaming mode each micro-batch is committed exactly once, even when the
    job is killed and restarted: see :mod:`connectors.file._micro_batch`.

    A record the format cannot hold fails on its own at the TASK_PUT stage
    (through ``errors.tolerance`` and the dead-letter queue) before the write:
    with ``text``, a value with a line break; with ``avro``, a header without
    a name (the schema requires header names).
    """

    commits_atomically = True

    #: The streaming query's commits (see :meth:`open`); none in batch mode.
    _commits: QueryCommits | None = None

    name = "file"
    aliases = ("FileStreamSink", "org.apache.kafka.connect.file.FileStreamSinkConnector")
    checkpoint_keys = ("path", "format")
    config_def = (
        ConfigDef()
        .define(
            "path",
            ConfigType.PATH,
            REQUIRED,
            None,
            Importance.HIGH,
            "Output directory. Relative paths resolve against the pipeline file's folder.",
        )
        .merge(FORMAT_CONFIG)
        .define(
            "write.mode",
            ConfigType.STRING,
            "errorifexists",
            one_of("errorifexists", "overwrite", "append", "ignore"),
            Importance.MEDIUM,
            "What to do when the output exists (Spark's save modes), in batch mode; a file "
            "dead-letter queue (errors.deadletterqueue.path) follows it too. "
            "Streaming always adds to the directory.",
        )
    )

    def output_fields(self):
        # One line per value: nothing else of the record reaches a text file.
        return frozenset({"value"}) if self.config["format"] == "text" else None

    def output_paths(self):
        return {f"{self.context.prefix}path": self.config["path"]}

    def output_conflicts(self):
        prefix = self.context.prefix
        refused = existing_output(self.config["path"], self.config["write.mode"], f"{prefix}write.mode")
        return {f"{prefix}path": refused} if refused else {}

    def record_errors(self, records):
        check = _RECORD_CHECKS.get(self.config["format"])
        return check(records) if check is not None else ()

    def open(self, context: SinkContext) -> None:
        if context.checkpoint is not None:
            self._commits = QueryCommits(self.config["path"], context.checkpoint)

    def write(self, df, batch_id=None):
        fmt = FORMATS[self.config["format"]]
        if batch_id is None:
            self._write_batch(fmt, df)
        elif self._commits is None:
            raise SmtError(f"{self.context.prefix}path: a micro-batch came before the streaming query's checkpoint")
        else:
            self._commits.write(fmt, df, batch_id)

    def _write_batch(self, fmt, df) -> None:
        path, mode = self.config["path"], self.config["write.mode"]
        try:
            fmt.write(df, path, mode)
        except Exception as exc:
            if not isinstance(exc, OutputExistsError) and "PATH_ALREADY_EXISTS" not in str(exc):
                raise
            # Spark's message says 'Set mode as "overwrite"', not which key does it.
            prefix = self.context.prefix
            raise SmtError(f"{prefix}path: {already_exists(path, mode, f'{prefix}write.mode')}") from None


#: Per-format checks of the records a format cannot write (jsonl and parquet hold any record).
_RECORD_CHECKS = {"text": line_break_errors, "avro": avro_record_errors}
