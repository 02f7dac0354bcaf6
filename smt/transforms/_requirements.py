"""The shape checks every transform makes, with Kafka Connect's messages.

Schemaless values must be maps, schema'd values structs; the messages name
the operation (``[field insertion]``) and what was found instead, exactly as
Kafka's ``Requirements`` word them, with the Python type name in place of the
Java class name.
"""

from __future__ import annotations

from typing import Any

from smt.errors import DataError

__all__ = [
    "require_map",
    "require_map_or_none",
    "require_struct",
    "require_struct_or_none",
    "require_schema",
    "type_name",
]


def type_name(value: Any) -> str:
    """The name Kafka's messages show for ``value``'s type (``null`` for None)."""
    return "null" if value is None else type(value).__name__


def require_map(value: Any, purpose: str) -> dict:
    if not isinstance(value, dict):
        raise DataError(f"Only Map objects supported in absence of schema for [{purpose}], found: {type_name(value)}")
    return value


def require_map_or_none(value: Any, purpose: str) -> dict | None:
    return None if value is None else require_map(value, purpose)


def require_struct(value: Any, purpose: str) -> Any:
    from smt.data import Struct

    if not isinstance(value, Struct):
        raise DataError(f"Only Struct objects supported for [{purpose}], found: {type_name(value)}")
    return value


def require_struct_or_none(value: Any, purpose: str) -> Any:
    return None if value is None else require_struct(value, purpose)


def require_schema(schema: Any, purpose: str) -> Any:
    if schema is None:
        raise DataError(f"Schema required for [{purpose}]")
    return schema
