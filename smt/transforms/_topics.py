"""Rewriting the topic column of a batch, shared by the routers."""

from __future__ import annotations

from typing import Callable

from smt.batch import RecordBatch
from smt.transform import ErrorSink
from smt.transforms._variant import derive_batch

__all__ = ["map_topics"]


def map_topics(
    batch: RecordBatch,
    errors: ErrorSink,
    route: Callable[[str, int | None], str],
    needs_timestamp: bool,
) -> RecordBatch:
    """Each row's topic becomes ``route(topic, timestamp)``; a failing row is reported and dropped."""
    topics = batch.column("topic")
    stamps = batch.column("timestamp") if needs_timestamp else [None] * len(topics)
    out: list[str] = []
    failed: list[int] = []
    append = out.append
    for row, (topic, stamp) in enumerate(zip(topics, stamps)):
        try:
            append(route(topic, stamp))
        except Exception as exc:  # attributed to its row
            errors.fail(row, exc)
            failed.append(row)
            append(topic)
    return derive_batch(batch, topic=out).without_rows(failed)
