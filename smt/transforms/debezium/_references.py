"""``add.fields`` / ``add.headers`` entries: which envelope field to copy, under which name.

An entry is ``field``, ``struct.field`` (``source.ts_ms``, ``transaction.id``) or either with
``:new_name``. A bare name is read from the envelope when the envelope has that field
(``op``, ``ts_ms``) and from the ``source`` block otherwise (``table``, ``lsn``), as Debezium does.
The output name is the prefix followed by the new name, or by ``struct_field`` / ``field``.
"""

from __future__ import annotations

from typing import Any

from smt.data import Schema, Struct
from smt.errors import ConfigError
from smt.transforms._structs import optional_schema


class FieldReference:
    """One entry of ``add.fields`` or ``add.headers``."""

    __slots__ = ("struct", "field", "new_name")

    def __init__(self, spec: str, prefix: str, key: str) -> None:
        path, _, rename = spec.strip().partition(":")
        parts = path.split(".")
        if not path or len(parts) > 2 or not all(parts):
            raise ConfigError.for_key(key, "expected field, struct.field or either with :new_name", spec)
        self.struct = parts[0] if len(parts) == 2 else None
        self.field = parts[-1]
        self.new_name = prefix + (rename or ("_".join(parts)))

    def _container(self, envelope_schema: Schema) -> str | None:
        if self.struct is not None:
            return self.struct
        return None if envelope_schema.field(self.field) is not None else "source"

    def schema(self, envelope_schema: Schema) -> Schema | None:
        """The added field's schema (optional), or None when the envelope has no such field."""
        container = self._container(envelope_schema)
        holder = envelope_schema
        if container is not None:
            found = envelope_schema.field(container)
            if found is None:
                return None
            holder = found.schema
        field = holder.field(self.field)
        return None if field is None else optional_schema(field.schema)

    def value(self, envelope: Struct) -> Any:
        """The referenced value in ``envelope`` (None when absent)."""
        container = self._container(envelope.schema)
        holder = envelope
        if container is not None:
            if envelope.schema.field(container) is None:
                return None
            holder = envelope.get(container)
            if holder is None:
                return None
        return holder.get(self.field) if holder.schema.field(self.field) is not None else None


def parse_references(specs: list[str], prefix: str, key: str) -> list[FieldReference]:
    return [FieldReference(spec, prefix, key) for spec in specs if spec.strip()]
