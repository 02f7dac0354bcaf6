"""HasHeaderKey: true for records with at least one header of a given name."""

from __future__ import annotations

from smt.batch import RecordBatch
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance
from smt.config import kafka_non_empty_string as non_empty_string
from smt.predicates.topic_name_matches import KAFKA_PACKAGE
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import Predicate


class HasHeaderKey(Reconfigurable, Predicate):
    """True when the record has at least one header called ``name``."""

    name = "HasHeaderKey"
    aliases = (KAFKA_PACKAGE + "HasHeaderKey", "hasheaderkey")
    config_def = ConfigDef().define(
        "name", ConfigType.STRING, REQUIRED, non_empty_string, Importance.MEDIUM, "The header name."
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"headers"})

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.header = self.config["name"]

    def test(self, record: Record) -> bool:
        return any(name == self.header for name, _ in record.headers)

    def compile_test(self, record, functions):
        """True where a header has the name (no headers: false)."""
        F = functions
        found = F.exists(record.columns["headers"], lambda header: header["key"] == F.lit(self.header))
        return F.coalesce(found, F.lit(False))

    @classmethod
    def compiled_form(cls) -> str:
        return "whole records, in streaming runs of bytes"

    def test_batch(self, batch: RecordBatch) -> list[bool]:
        wanted = self.header
        if batch.is_arrow("headers"):
            return _matches_in_arrow(batch.arrow_column("headers"), wanted, len(batch))
        return [any(h[0] == wanted for h in row) if row else False for row in batch.headers]


def _matches_in_arrow(headers, wanted: str, rows: int) -> list[bool]:
    """Rows with a header ``wanted``, computed on the Arrow list column (headers stay unconverted)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(headers, pa.ChunkedArray):
        headers = headers.combine_chunks()
    keys = pc.struct_field(pc.list_flatten(headers), "key")
    parents = pc.list_parent_indices(headers)
    hits = pc.filter(parents, pc.fill_null(pc.equal(keys, wanted), False)).to_pylist()
    result = [False] * rows
    for row in hits:
        result[row] = True
    return result
