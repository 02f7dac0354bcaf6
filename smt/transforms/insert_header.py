"""InsertHeader: append a header with a literal value to every record."""

from __future__ import annotations

from smt.batch import RecordBatch
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance
from smt.reconfigure import Reconfigurable
from smt.record import KAFKA_ROW_TYPES, Record
from smt.transform import ErrorSink, Transform
from smt.transforms._variant import KAFKA_PACKAGE, derive_batch


class InsertHeader(Reconfigurable, Transform):
    """Append the header ``header`` with ``value.literal``, parsed once as the header converter infers types.

    ``value.literal=42`` gives the integer 42, ``true`` a boolean, ``[1,2]`` a list; other text
    stays a string. Existing headers of the same name are kept. Tombstones get the header too.
    """

    name = "InsertHeader"
    aliases = (KAFKA_PACKAGE + "InsertHeader", "insertheader")
    config_def = (
        ConfigDef()
        .define("header", ConfigType.STRING, REQUIRED, None, Importance.HIGH, "The name of the header.")
        .define(
            "value.literal",
            ConfigType.STRING,
            REQUIRED,
            None,
            Importance.HIGH,
            "The literal value that is to be set as the header value on all records.",
        )
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"headers"})

    def changed_fields(self) -> frozenset[str]:
        return frozenset({"headers"})

    def configure(self, configs, context=None) -> None:
        from smt.data import parse_string

        super().configure(configs, context)
        self.header = self.config["header"]
        self.literal_schema, self.literal = parse_string(self.config["value.literal"])

    def apply(self, record: Record) -> Record:
        return record.with_header(self.header, self.literal)

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        added = ((self.header, self.literal),)
        return derive_batch(batch, headers=[tuple(row) + added for row in batch.headers])

    def compile_record(self, record, functions):
        """The header appended, as the bytes the header converter writes for the literal (computed once);
        no headers give a list of this one.  Raises NotCompilable when the converter cannot write it."""
        F = functions
        written = record.header_bytes(self.header, self.literal)
        header = F.struct(F.lit(self.header).alias("key"), F.lit(written).cast("binary").alias("value"))
        headers = F.coalesce(record.columns["headers"], F.array().cast(KAFKA_ROW_TYPES["headers"]))
        return record.replaced(headers=F.concat(headers, F.array(header)))

    @classmethod
    def compiled_form(cls) -> str:
        return "whole records, in streaming runs of bytes"
