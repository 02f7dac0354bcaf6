"""Filter: drop records (use it with a predicate to choose which)."""

from __future__ import annotations

from smt.batch import RecordBatch
from smt.record import Record
from smt.transform import ErrorSink, Transform
from smt.transforms._variant import KAFKA_PACKAGE


class Filter(Transform):
    """Drop every record it applies to; with ``predicate`` (and ``negate``) it drops only those that match."""

    name = "Filter"
    aliases = (KAFKA_PACKAGE + "Filter", "filter")

    def apply(self, record: Record) -> None:
        return None

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        return batch.take([])
