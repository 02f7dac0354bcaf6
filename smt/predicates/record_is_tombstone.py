"""RecordIsTombstone: true for records whose value is null."""

from __future__ import annotations

from smt.batch import RecordBatch
from smt.predicates.topic_name_matches import KAFKA_PACKAGE
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import Predicate


class RecordIsTombstone(Reconfigurable, Predicate):
    """True when the record's value is null (a tombstone)."""

    name = "RecordIsTombstone"
    aliases = (KAFKA_PACKAGE + "RecordIsTombstone", "recordistombstone")

    def input_fields(self) -> frozenset[str]:
        return frozenset({"value"})

    def test(self, record: Record) -> bool:
        return record.value is None

    def compile_test(self, record, functions):
        """True where the value is null."""
        return record.columns["value"].isNull()

    @classmethod
    def compiled_form(cls) -> str:
        return "whole records, in streaming runs of bytes"

    def test_batch(self, batch: RecordBatch) -> list[bool]:
        if batch.is_arrow("value"):
            return batch.arrow_column("value").is_null().to_pylist()
        return [value is None for value in batch.value]
