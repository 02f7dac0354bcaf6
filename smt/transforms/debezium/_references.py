"""``add.fields`` / ``add.headers`` entries: which envelope field to copy, under which name.

An entry is ``field``, ``struct.field`` (``source.ts_ms``, ``transaction.id``) or either with
``:new_name``. As in Debezium 3.6, a bare name is read from the envelope for ``op`` and the
``ts_*`` fields, from the ``transaction`` block for ``id``, ``total_order`` and
``data_collection_order``, and from the ``source`` block otherwise (``table``, ``lsn``); a name
its block lacks is read from the envelope itself when the envelope has it (a field another SMT
added). The output name is the prefix followed by the new name, or by ``struct_field`` / ``field``.
"""

from __future__ import annotations

from typing import Any

from smt.data import Schema, SchemaBuilder, Struct, Type
from smt.data.builder import copy_schema_basics
from smt.errors import ConfigError

_ENVELOPE_FIELDS = frozenset({"op", "ts_ms", "ts_us", "ts_ns"})
_TRANSACTION_FIELDS = frozenset({"id", "total_order", "data_collection_order"})


def _block_of(field: str) -> str | None:
    if field in _ENVELOPE_FIELDS:
        return None
    return "transaction" if field in _TRANSACTION_FIELDS else "source"


class FieldReference:
    """One entry of ``add.fields`` or ``add.headers``."""

    __slots__ = ("struct", "field", "new_name")

    def __init__(self, spec: str, prefix: str, key: str) -> None:
        path, _, rename = spec.strip().partition(":")
        parts = path.split(".")
        if not path or len(parts) > 2 or not all(parts) or ":" in rename:
            raise ConfigError.for_key(key, "expected field, struct.field or either with :new_name", spec)
        self.field = parts[-1]
        self.struct = parts[0] if len(parts) == 2 else _block_of(self.field)
        self.new_name = prefix + (rename or ("_".join(parts)))

    def __repr__(self) -> str:
        return f"FieldReference({self.struct}.{self.field} -> {self.new_name})"

    def schema(self, envelope_schema: Schema) -> Schema | None:
        """The added field's schema (optional), or None when the envelope has no such field."""
        holder = envelope_schema
        if self.struct is not None:
            block = envelope_schema.field(self.struct)
            if block is None:
                return None
            holder = block.schema
        field = holder.field(self.field) or envelope_schema.field(self.field)
        return None if field is None else _optional_basics(field.schema)

    def value(self, envelope: Struct) -> Any:
        """The referenced value in ``envelope`` (None when absent)."""
        holder = envelope
        if self.struct is not None:
            if envelope.schema.field(self.struct) is None:
                return None
            holder = envelope.get_without_default(self.struct)
            if holder is None:
                return None
        if holder.schema.field(self.field) is not None:
            return holder.get_without_default(self.field)
        if envelope.schema.field(self.field) is not None:
            return envelope.get_without_default(self.field)
        return None


def _optional_basics(schema: Schema) -> Schema:
    """``schema``'s type and basics (name, version, doc, parameters), optional and with no default:
    Debezium's ``SchemaUtil.copySchemaBasics(schema).optional()`` (a struct keeps no fields)."""
    if schema.type is Type.ARRAY:
        builder = SchemaBuilder.array(schema.value_schema)
    elif schema.type is Type.MAP:
        builder = SchemaBuilder.map(schema.key_schema, schema.value_schema)
    else:
        builder = SchemaBuilder(schema.type)
    return copy_schema_basics(schema, builder).optional().build()


def parse_references(specs: list[str], prefix: str, key: str) -> list[FieldReference]:
    return [FieldReference(spec, prefix, key) for spec in specs if spec.strip()]
