"""ExtractNewRecordState: replace a Debezium change event by the row state it carries."""

from __future__ import annotations

import logging
from typing import Any

from smt.compiled import CompiledValue, NotCompilable
from smt.config import ConfigDef, ConfigType, Importance, one_of
from smt.data import Schema, Struct, Type, validate_value
from smt.data.values import parse_string
from smt.errors import DataError
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import Transform
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._structs import copy_basics
from smt.transforms.debezium._compiled_unwrap import compile_unwrap
from smt.transforms.debezium._envelope import DELETE, envelope_part, is_envelope
from smt.transforms.debezium._references import FieldReference, parse_references
from smt.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue

_LOG = logging.getLogger(__name__)
DEBEZIUM_PACKAGE = "io.debezium.transforms."
DELETED_FIELD = "__deleted"
MODES = ("drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone")
# Keys Debezium 3.x removed: its ConfigDef no longer reads them, so they change nothing. They are
# declared (so that a file carrying them is not refused as naming unknown keys) and warned about.
OBSOLETE_KEYS = {
    "drop.tombstones": "delete.tombstone.handling.mode",
    "delete.handling.mode": "delete.tombstone.handling.mode",
}
# Debezium 3.6 keeps the connector's own tombstones only in this mode; the others drop them.
_KEEPS_TOMBSTONES = frozenset({"rewrite-with-tombstone"})
_REWRITES = frozenset({"rewrite", "rewrite-with-tombstone"})
# ReplaceField stages kept for the field lists of drop.fields.header.name (Debezium makes one a record).
_DROPPERS_KEPT = 64


class ExtractNewRecordState(Reconfigurable, Transform):
    """Replace a Debezium change event (``before``/``after``/``source``/``op``) by its new row state.

    Creates, reads and updates become the ``after`` struct. A delete is dropped, kept as a
    record with a null value, rewritten as ``before`` plus ``__deleted=true`` (every other
    event then carries ``__deleted=false``) or turned into a tombstone, as
    ``delete.tombstone.handling.mode`` says. The connector's own tombstones are kept only by
    ``rewrite-with-tombstone``. Truncate events (neither ``before`` nor ``after``) are dropped.
    Records that are not Debezium envelopes (no schema, or a value schema not named
    ``*.Envelope``) pass unchanged. ``drop.fields.header.name`` names a header listing fields to
    remove from the value (and the key, with ``drop.fields.from.key``), which Kafka's ReplaceField
    removes, as Debezium delegates to it. Checked against Debezium 3.6.1.Final's own class by
    tests/oracle/test_debezium_oracle.py.
    """

    name = "ExtractNewRecordState"
    aliases = (DEBEZIUM_PACKAGE + "ExtractNewRecordState",)
    config_def = (
        ConfigDef()
        .define(
            "delete.tombstone.handling.mode",
            ConfigType.STRING,
            "tombstone",
            one_of(*MODES, case_sensitive=False),  # Debezium parses the mode ignoring case
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
            "Whether the rewrite modes, adding __deleted, write a null field whose schema has a default "
            "as that default (Debezium hands it to its InsertField delegate).",
        )
        .define(
            "drop.fields.header.name",
            ConfigType.STRING,
            None,
            None,
            Importance.LOW,
            "The name of a header whose value, a list of field names, says which fields to remove "
            "from the event value.",
        )
        .define(
            "drop.fields.from.key",
            ConfigType.BOOLEAN,
            False,
            None,
            Importance.LOW,
            "Whether the fields named by drop.fields.header.name are removed from the key too.",
        )
        .define(
            "drop.fields.keep.schema.compatible",
            ConfigType.BOOLEAN,
            True,
            None,
            Importance.LOW,
            "true: only optional fields are removed, so the schemas stay compatible; false: every "
            "named field is removed.",
        )
        .define(
            "drop.tombstones",
            ConfigType.STRING,
            None,
            None,
            Importance.LOW,
            "Removed in Debezium 3.x and ignored (a warning says so): use delete.tombstone.handling.mode.",
        )
        .define(
            "delete.handling.mode",
            ConfigType.STRING,
            None,
            None,
            Importance.LOW,
            "Removed in Debezium 3.x and ignored (a warning says so): use delete.tombstone.handling.mode.",
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
        self.mode = self.config["delete.tombstone.handling.mode"].strip().lower()
        self.fields = parse_references(
            self.config["add.fields"], self.config["add.fields.prefix"], prefix + "add.fields"
        )
        self.headers = parse_references(
            self.config["add.headers"], self.config["add.headers.prefix"], prefix + "add.headers"
        )
        # Debezium reads the name as written, spaces and all: a blank one names no field of any row.
        self.route_by = str(self.raw_config.get("route.by.field") or "")
        self.replace_null = self.config["replace.null.with.default"]
        self.drop_header = (self.config["drop.fields.header.name"] or "").strip()
        self.drop_from_key = self.config["drop.fields.from.key"]
        self.drop_compatible = self.config["drop.fields.keep.schema.compatible"]
        self.schema_cache = SchemaCache()
        self._droppers: dict[tuple[type, tuple[str, ...]], Transform] = {}

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
        # Debezium's order for creates, reads and updates: route, add fields, drop fields.
        out = self._state(record, envelope, "after", deleted=False)
        out = self._routed(out, out.value)
        return self._drop_fields(self._with_fields(out, envelope))

    @classmethod
    def compiled_form(cls) -> str:
        """What of it runs compiled (:class:`smt.compiled.CompiledStage`; the rules: ``_compiled_unwrap``)."""
        return (
            "creates, reads and updates, deletes in the rewrite modes, and tombstones where the mode drops them, "
            "with add.fields; no add.headers, route.by.field nor drop.fields.header.name"
        )

    def compile_value(self, value: CompiledValue, functions: Any) -> CompiledValue:
        """The envelope's row state in Spark SQL (the compiled path, :mod:`smt.compiled`): the records that
        are plain column rewrites; the others (truncates, deletes the mode drops or makes tombstones) are
        left to the Python path.  Raises NotCompilable for keys that are more than a column rewrite."""
        return compile_unwrap(self, value, functions)

    def compile_tombstone(self) -> bool:
        """What :meth:`_tombstone` does with every record whose value is null (the compiled path,
        :class:`smt.compiled.CompiledTombstones`): drops it (True), or keeps it as it is (False)."""
        if self.mode not in _KEEPS_TOMBSTONES:
            return True
        if any(ref.field == "op" for ref in self.headers):
            raise NotCompilable(f"{self.context.prefix}add.headers adds an 'op' header to a kept tombstone")
        return False

    def _tombstone(self, record: Record) -> Record | None:
        """Kept only by rewrite-with-tombstone; an ``op`` header reads ``d`` (Debezium's rule)."""
        if self.mode not in _KEEPS_TOMBSTONES:
            return None
        added = tuple((ref.new_name, DELETE) for ref in self.headers if ref.field == "op")
        return record.replace(headers=record.headers + added) if added else record

    def _delete(self, record: Record, envelope: Struct) -> Record | None:
        # Debezium's order for deletes: route by the before state, drop fields, add fields.
        if self.mode == "drop":
            return None
        if self.mode == "delete-to-tombstone":
            out = record.replace(value=None, value_schema=None)
        elif self.mode in _REWRITES:
            out = self._state(record, envelope, "before", deleted=True)
        else:
            out = self._state(record, envelope, "after", deleted=False)
        out = self._drop_fields(self._routed(out, envelope_part(envelope, "before")))
        return out if out.value is None else self._with_fields(out, envelope)

    def _state(self, record: Record, envelope: Struct, part: str, deleted: bool) -> Record:
        """The record with ``part`` (before or after) as its value, plus ``__deleted`` in rewrite modes."""
        # As Debezium's ExtractField delegate, which it configures with the field name alone: Kafka's
        # ExtractField then reads a null before/after as its schema's default, whatever
        # replace.null.with.default says (that key reaches only the __deleted InsertField).
        row = envelope.get(part)
        part_schema = envelope.schema.field(part).schema
        if row is None:  # a delete in tombstone mode: a null value with the row schema
            return record.replace(value=None, value_schema=part_schema)
        if self.mode not in _REWRITES:
            return record.replace(value=row, value_schema=row.schema)
        # As Debezium's InsertField delegate (Kafka's InsertField, static.field=__deleted).
        schema = self.schema_cache.get(("deleted", row.schema), self._with_deleted)
        read = row.get if self.replace_null else row.get_without_default
        values = [read(field) for field in row.schema.fields]
        values.append("true" if deleted else "false")
        return record.replace(value=_copied(schema, values), value_schema=schema)

    @staticmethod
    def _with_deleted(key: tuple[str, Schema]) -> Schema:
        row_schema = key[1]
        builder = copy_basics(row_schema)
        for field in row_schema.fields:
            builder.field(field.name, field.schema)
        return builder.field(DELETED_FIELD, Schema.OPTIONAL_STRING_SCHEMA).build()

    def _with_fields(self, record: Record, envelope: Struct) -> Record:
        """The value with the ``add.fields`` that the envelope has (Debezium's addFields)."""
        value = record.value
        if not isinstance(value, Struct):
            raise DataError(
                f"Only Struct objects supported for [source field insertion], found: {type(value).__name__}"
            )
        schema = self.schema_cache.get(("fields", value.schema, envelope.schema), self._derive)
        if schema is value.schema:  # no field to add, and the copy's schema equals the value's: it is the value
            _check_nulls(value)
            return record if record.value_schema is schema else record.replace(value_schema=schema)
        values = [value.get_without_default(field) for field in value.schema.fields]  # Debezium copies raw values
        out = _copied(schema, values)
        for reference in self.fields:
            if reference.schema(envelope.schema) is not None:
                out.put(reference.new_name, reference.value(envelope))
        return record.replace(value=out, value_schema=schema)

    def _derive(self, key: tuple[str, Schema, Schema]) -> Schema:
        """The schema of the value with the added fields: the value's own schema when it equals it."""
        _, value_schema, envelope_schema = key
        builder = copy_basics(value_schema)
        for field in value_schema.fields:
            builder.field(field.name, field.schema)
        for reference in self.fields:
            field_schema = reference.schema(envelope_schema)
            if field_schema is not None:
                builder.field(reference.new_name, field_schema)
        derived = builder.build()
        return value_schema if derived == value_schema else derived

    def _drop_fields(self, record: Record) -> Record:
        """Without the fields the ``drop.fields.header.name`` header lists (Debezium's dropFields),
        removed by Kafka's ReplaceField as Debezium removes them."""
        if not self.drop_header:
            return record
        names = _header_value(next((value for name, value in record.headers if name == self.drop_header), None))
        if names is None:
            return record
        if not isinstance(names, (list, tuple)):
            raise DataError(
                f"the {self.drop_header} header must hold a list of field names, found: {type(names).__name__}"
            )
        if not names:
            return record
        if self.drop_from_key and record.key is not None:
            record = self._without(ReplaceFieldKey, record, self._droppable(record.key_schema, names, "key"))
        return self._without(ReplaceFieldValue, record, self._droppable(record.value_schema, names, "value"))

    def _droppable(self, schema: Schema | None, names: list[str], part: str) -> list[str]:
        if not self.drop_compatible:
            return [str(name) for name in names]
        if schema is None:
            # Debezium fails here too (a NullPointerException): it looks for optional fields.
            raise DataError(f"drop.fields.keep.schema.compatible needs a {part} schema to find optional fields in")
        return [field.name for field in schema.fields if field.schema.optional and field.name in names]

    def _without(self, variant: type, record: Record, names: list[str]) -> Record:
        if not names:
            return record
        key = (variant, tuple(names))
        dropper = self._droppers.get(key)
        if dropper is None:
            if len(self._droppers) >= _DROPPERS_KEPT:  # each record's header may list other fields
                self._droppers.clear()
            dropper = self._droppers[key] = variant()
            dropper.configure({"exclude": ",".join(names)})
        return dropper.apply(record)

    def _with_headers(self, record: Record, envelope: Struct) -> Record:
        added = tuple(
            (reference.new_name, reference.value(envelope))
            for reference in self.headers
            if reference.schema(envelope.schema) is not None
        )
        return record.replace(headers=record.headers + added) if added else record

    def _routed(self, record: Record, row: Struct | None) -> Record:
        """The record with ``route.by.field``'s value of ``row`` as its topic, unless null or blank.

        Debezium reads the field with Struct.getString: a row without it, or with it not a
        string, fails the record.
        """
        if not self.route_by or row is None:
            return record
        field = row.schema.field(self.route_by)
        if field is None:
            raise DataError(f"{self.route_by} is not a valid field name")
        if field.schema.type is not Type.STRING:
            raise DataError(f"Field '{self.route_by}' is not of type STRING")
        topic = row.get(self.route_by)
        return record if topic is None or not topic.strip() else record.replace(topic=topic)


def _header_value(value: Any) -> Any:
    """A header's value: one still in bytes (as read from the source; see the header-bytes-pass-through
    deviation) is read as Kafka Connect's default header converter, SimpleHeaderConverter, reads it."""
    if not isinstance(value, (bytes, bytearray)):
        return value
    try:
        return parse_string(bytes(value).decode("utf-8"))[1]
    except UnicodeDecodeError:
        return value


__all__ = ["ExtractNewRecordState", "FieldReference"]


def _check_nulls(struct: Struct) -> None:
    """Refuse a null in a required field of ``struct``, as Kafka's ``Struct.put`` of a copy of it would."""
    fields = struct.schema.fields
    _refuse_nulls(fields, [struct.get_without_default(field) for field in fields])


def _refuse_nulls(fields: list[Any], values: list[Any]) -> None:
    """Kafka's ``Struct.put`` check of each null of ``values`` (in ``fields``' order) against its field."""
    for field, value in zip(fields, values):
        if value is None:
            validate_value(field.schema, None, field.name)


def _copied(schema: Schema, values: list[Any]) -> Struct:
    """A struct of ``schema`` whose first fields hold ``values``, copied in field order from a struct whose
    fields have these very schemas, as Kafka's ``Struct.put`` copies them; the fields after them are unset.

    A value read from such a struct is valid already, so only the nulls are checked (a required field
    refuses one, with Kafka's message)."""
    _refuse_nulls(schema.fields, values)
    return Struct.from_values(schema, values + [None] * (len(schema.fields) - len(values)), validate=False)
