"""Filter: drop records (use it with a predicate to choose which)."""

from __future__ import annotations

from smt.batch import RecordBatch
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import ErrorSink, Transform
from smt.transforms._variant import KAFKA_PACKAGE


class Filter(Reconfigurable, Transform):
    """Drop every record it applies to; with ``predicate`` (and ``negate``) it drops only those that match.

    Tombstones are dropped like any record (use the RecordIsTombstone predicate to choose them).
    """

    name = "Filter"
    aliases = (KAFKA_PACKAGE + "Filter", "filter")

    def input_fields(self) -> frozenset[str]:
        return frozenset(set())

    def changed_fields(self) -> frozenset[str]:
        return frozenset()

    def apply(self, record: Record) -> None:
        return None

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        return batch.take([])

    def compile_record(self, record, functions):
        """Every record dropped (the chain stage keeps those its predicate spares)."""
        return record.dropped(functions)

    @classmethod
    def compiled_form(cls) -> str:
        return "whole records, in streaming runs of bytes"
