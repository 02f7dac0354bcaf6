"""Debezium's change-event envelope: recognising one and reading its parts."""

from __future__ import annotations

from typing import Any

from smt.data import Struct
from smt.record import Record

ENVELOPE_SUFFIX = ".Envelope"
DELETE = "d"


def is_envelope(record: Record) -> bool:
    """Debezium unwraps only schema'd values whose schema is named ``*.Envelope``; anything else passes."""
    schema = record.value_schema
    return (
        isinstance(record.value, Struct)
        and schema is not None
        and schema.name is not None
        and schema.name.endswith(ENVELOPE_SUFFIX)
    )


def envelope_part(envelope: Struct, name: str) -> Any:
    """The envelope's field ``name``, or None when its schema has no such field."""
    return envelope.get(name) if envelope.schema.field(name) is not None else None
