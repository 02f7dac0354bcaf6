"""Dead letters to files: the file connector's writer for ``errors.deadletterqueue.path``.

The pipeline asks for it when the dead-letter queue is a location rather than
a Kafka topic.  It is a :class:`smt.connector.Sink` with the core alone (see
:mod:`smt.pipeline.dead_letters`): ``jsonl`` holds any record.
"""

from __future__ import annotations

from connectors.file._micro_batch import QueryCommits
from connectors.file._output_folder import already_exists, existing_output
from connectors.file.formats import FORMATS
from smt.connector import Sink, SinkContext
from smt.errors import SmtError

__all__ = ["FileDeadLetters"]


class FileDeadLetters(Sink):
    """Dead letters as whole records in the ``jsonl`` file format (readable back with
    ``source.format=jsonl``); each streaming micro-batch is written exactly once.

    A batch run writes them with ``write_mode`` (the file sink's
    ``sink.write.mode``, named by ``mode_key``, so that a rerun that replaces
    its output replaces its dead letters too); without a file sink, it appends.
    """

    #: As the file sink: a write that fails leaves nothing (see smt.connector.Sink).
    commits_atomically = True

    def __init__(self, path: str, write_mode: str = "append", mode_key: str | None = None) -> None:
        self.path = path
        self.write_mode = write_mode
        self.mode_key = mode_key
        self._commits: QueryCommits | None = None

    def spark_conf(self) -> dict[str, str]:
        return {}

    def output_paths(self) -> dict[str, str]:
        return {"errors.deadletterqueue.path": self.path}

    def output_conflicts(self) -> dict[str, str]:
        refused = existing_output(self.path, self.write_mode, self.mode_key or "")
        return {"errors.deadletterqueue.path": refused} if refused else {}

    def open(self, context: SinkContext) -> None:
        """A streaming query's checkpoint, whose id the micro-batch commits are kept under."""
        if context.checkpoint is not None:
            self._commits = QueryCommits(self.path, context.checkpoint)

    def write(self, df, batch_id=None) -> None:
        jsonl = FORMATS["jsonl"]
        if batch_id is None:
            try:
                jsonl.write(df, self.path, self.write_mode)
            except Exception as exc:
                if "PATH_ALREADY_EXISTS" not in str(exc):
                    raise
                message = already_exists(self.path, self.write_mode, self.mode_key or "")
                raise SmtError(f"errors.deadletterqueue.path: {message}") from None
        elif self._commits is None:
            raise SmtError("errors.deadletterqueue.path: a micro-batch came before the streaming query's checkpoint")
        else:
            self._commits.write(jsonl, df, batch_id)
