"""Dead letters to files: the file connector's writer for ``errors.deadletterqueue.path``.

The pipeline asks for it when the dead-letter queue is a location rather than
a Kafka topic; it answers ``record_errors`` like a sink (see
:mod:`smt.pipeline.dead_letters`).
"""

from __future__ import annotations

__all__ = ["FileDeadLetters"]


class FileDeadLetters:
    """Dead letters as whole records in the ``jsonl`` file format (readable back with
    ``source.format=jsonl``); each streaming micro-batch is written exactly once."""

    #: As the file sink: a write that fails leaves nothing (see smt.connector.Sink).
    commits_atomically = True

    def __init__(self, path: str) -> None:
        self.path = path

    def spark_conf(self) -> dict[str, str]:
        return {}

    def record_errors(self, records) -> list:
        return []  # jsonl holds any record

    def write(self, df, batch_id=None) -> None:
        from connectors.file._micro_batch import write_micro_batch
        from connectors.file.formats import FORMATS

        jsonl = FORMATS["jsonl"]
        if batch_id is None:
            jsonl.write(df, self.path, "append")
        else:
            write_micro_batch(jsonl, df, self.path, batch_id)
