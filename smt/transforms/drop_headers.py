"""DropHeaders: remove every header with one of the given names."""

from __future__ import annotations

from smt.batch import RecordBatch
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, non_empty_list
from smt.reconfigure import Reconfigurable
from smt.record import KAFKA_ROW_TYPES, Record
from smt.transform import ErrorSink, Transform
from smt.transforms._variant import KAFKA_PACKAGE, derive_batch


class DropHeaders(Reconfigurable, Transform):
    """Remove all headers whose name is in ``headers``; the others keep their order. Tombstones too."""

    name = "DropHeaders"
    aliases = (KAFKA_PACKAGE + "DropHeaders", "dropheaders")
    config_def = ConfigDef().define(
        "headers", ConfigType.LIST, REQUIRED, non_empty_list, Importance.HIGH, "The name of the headers to be removed."
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"headers"})

    def changed_fields(self) -> frozenset[str]:
        return frozenset({"headers"})

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.names = frozenset(self.config["headers"])

    def apply(self, record: Record) -> Record:
        return record.without_headers(self.names)

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        names = self.names
        headers = [tuple(h for h in row if h[0] not in names) if row else row for row in batch.headers]
        return derive_batch(batch, headers=headers)

    def compile_record(self, record, functions):
        """The headers without those named (a header without a name stays); no headers give an empty list,
        as the Python path writes them."""
        F = functions
        names = sorted(self.names)
        headers = F.coalesce(record.columns["headers"], F.array().cast(KAFKA_ROW_TYPES["headers"]))
        kept = F.filter(headers, lambda header: ~F.coalesce(header["key"].isin(names), F.lit(False)))
        return record.replaced(headers=kept)

    @classmethod
    def compiled_form(cls) -> str:
        return "whole records, in streaming runs of bytes"
