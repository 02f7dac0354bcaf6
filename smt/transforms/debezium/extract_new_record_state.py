"""ExtractNewRecordState: replace a Debezium change event by the row state it carries."""

from __future__ import annotations

import logging

from smt.config import ConfigDef, ConfigType, Importance, one_of
from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import Transform
from smt.transforms._schema_cache import SchemaCache
from smt.transforms.debezium._envelope import DELETE, envelope_part, is_envelope
from smt.transforms.debezium._references import FieldReference, parse_references

_LOG = logging.getLogger(__name__)
DEBEZIUM_PACKAGE = "io.debezium.transforms."
DELETED_FIELD = "__deleted"
MODES = ("drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone")
# Keys Debezium 3.x removed: its ConfigDef no longer reads them, so they change nothing.
OBSOLETE_KEYS = {
    "drop.tombstones": "delete.tombstone.handling.mode",
    "delete.handling.mode": "delete.tombstone.handling.mode",
}
# Keys of Debezium's that this implementation does not carry yet: refused rather than ignored.
UNSUPPORTED_KEYS = (
    "drop.fields.header.name",
    "drop.fields.from.key",
    "drop.fields.keep.schema.compatible",
)
# Debezium 3.6 keeps the connector's own tombstones only in this mode; the others drop them.
_KEEPS_TOMBSTONES = frozenset({"rewrite-with-tombstone"})
_REWRITES = frozenset({"rewrite", "rewrite-with-tombstone"})


class ExtractNewRecordState(Reconfigurable, Transform):
    """Replace a Debezium change event (``before``/``after``/``source``/``op``) by its new row state.

    Creates, reads and updates become the ``after`` struct. A delete is dropped, kept as a
    record with a null value, rewritten as ``before`` plus ``__deleted=true`` (every other
    event then carries ``__deleted=false``) or turned into a tombstone, as
    ``delete.tombstone.handling.mode`` says. The connector's own tombstones are kept only by
    ``rewrite-with-tombstone``. Truncate events (neither ``before`` nor ``after``) are dropped. Records that are not Debezium envelopes (no
    schema, or a value schema not named ``*.Envelope``) pass unchanged.
    """

    name = "ExtractNewRecordState"
    aliases = (DEBEZIUM_PACKAGE + "ExtractNewRecordState",)
    config_def = (
        ConfigDef()
        .define(
            "delete.tombstone.handling.mode",
            ConfigType.STRING,
            "tombstone",
            one_of(*MODES),
            Importance.MEDIUM,
            "What to do with delete events and tombstones: drop, tombstone, rewrite, "
            "rewrite-with-tombstone or delete-to-tombstone.",
        )
        .define(
            "add.fields",
            ConfigType.LIST,
            [],
            None,
            Importance.LOW,
            "Envelope fields to add to the row: op, ts_ms, source fields (table, lsn, source.ts_ms), "
            "transaction.id; field:new_name renames.",
        )
        .define("add.fields.prefix", ConfigType.STRING, "__", None, Importance.LOW, "Prefix of added field names.")
        .define(
            "add.headers",
            ConfigType.LIST,
            [],
            None,
            Importance.LOW,
            "Envelope fields to add as headers, written as for add.fields.",
        )
        .define("add.headers.prefix", ConfigType.STRING, "__", None, Importance.LOW, "Prefix of added header names.")
        .define(
            "route.by.field",
            ConfigType.STRING,
            "",
            None,
            Importance.LOW,
            "A field of the row state (before for deletes) whose value becomes the record's topic.",
        )
        .define(
            "replace.null.with.default",
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.LOW,
            "Whether a null before/after struct whose schema has a default reads as that default.",
        )
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        prefix = self.context.prefix
        for key, replacement in OBSOLETE_KEYS.items():
            if key in configs:
                _LOG.warning(
                    "%s%s is ignored: Debezium 3.6 removed it; use %s%s instead",
                    prefix,
                    key,
                    prefix,
                    replacement,
                )
        for key in UNSUPPORTED_KEYS:
            if key in configs:
                raise ConfigError.for_key(prefix + key, "is not supported by this ExtractNewRecordState yet")
        self.mode = self.config["delete.tombstone.handling.mode"]
        self.fields = parse_references(
            self.config["add.fields"], self.config["add.fields.prefix"], prefix + "add.fields"
        )
        self.headers = parse_references(
            self.config["add.headers"], self.config["add.headers.prefix"], prefix + "add.headers"
        )
        self.route_by = self.config["route.by.field"]
        self.replace_null = self.config["replace.null.with.default"]
        self.schema_cache = SchemaCache()

    def apply(self, record: Record) -> Record | None:
        if record.value is None:
            return self._tombstone(record)
        if not is_envelope(record):
            return record
        envelope = record.value
        record = self._with_headers(record, envelope)
        if envelope_part(envelope, "after") is None:
            if envelope_part(envelope, "before") is None:
                return None  # a truncate event: Debezium drops it
            return self._delete(record, envelope)
        return self._state(record, envelope, "after", deleted=False)

    def _tombstone(self, record: Record) -> Record | None:
        """Kept only by rewrite-with-tombstone; an ``op`` header reads ``d`` (Debezium's rule)."""
        if self.mode not in _KEEPS_TOMBSTONES:
            return None
        added = tuple((ref.new_name, DELETE) for ref in self.headers if ref.field == "op")
        return record.replace(headers=record.headers + added) if added else record

    def _delete(self, record: Record, envelope: Struct) -> Record | None:
        if self.mode == "drop":
            return None
        if self.mode == "delete-to-tombstone":
            return self._routed(record.replace(value=None, value_schema=None), envelope_part(envelope, "before"))
        if self.mode in _REWRITES:
            return self._state(record, envelope, "before", deleted=True)
        return self._state(record, envelope, "after", deleted=False)

    def _state(self, record: Record, envelope: Struct, part: str, deleted: bool) -> Record:
        # As Debezium's ExtractField delegate: only the before/after field's own default is at stake.
        row = envelope.get(part) if self.replace_null else envelope.get_without_default(part)
        part_schema = envelope.schema.field(part).schema
        if row is None:  # a delete in tombstone mode: routed by its before state, as in Debezium
            before = envelope_part(envelope, "before")
            return self._routed(record.replace(value=None, value_schema=part_schema), before)
        rewrite = self.mode in _REWRITES
        if not self.fields and not rewrite:
            return self._routed(record.replace(value=row, value_schema=row.schema), row)
        schema = self.schema_cache.get((row.schema, envelope.schema), self._derive)
        out = Struct(schema)
        for field in row.schema.fields:
            out.put(field.name, row.get_without_default(field))  # Debezium copies raw values
        if rewrite:
            out.put(DELETED_FIELD, "true" if deleted else "false")
        for reference in self.fields:
            if schema.field(reference.new_name) is not None:
                out.put(reference.new_name, reference.value(envelope))
        return self._routed(record.replace(value=out, value_schema=schema), out)

    def _derive(self, schemas: tuple[Schema, Schema]) -> Schema:
        row_schema, envelope_schema = schemas
        builder = SchemaBuilder.copy_of(row_schema)
        if self.mode in _REWRITES:  # Debezium inserts __deleted before the added fields
            builder.field(DELETED_FIELD, Schema.OPTIONAL_STRING_SCHEMA)
        for reference in self.fields:
            field_schema = reference.schema(envelope_schema)
            if field_schema is not None:
                builder.field(reference.new_name, field_schema)
        return builder.build()

    def _with_headers(self, record: Record, envelope: Struct) -> Record:
        added = tuple(
            (reference.new_name, reference.value(envelope))
            for reference in self.headers
            if reference.schema(envelope.schema) is not None
        )
        return record.replace(headers=record.headers + added) if added else record

    def _routed(self, record: Record, row: Struct | None) -> Record:
        if not self.route_by or row is None or row.schema.field(self.route_by) is None:
            return record
        topic = row.get(self.route_by)
        return record if topic is None else record.replace(topic=str(topic))


__all__ = ["ExtractNewRecordState", "FieldReference"]
