"""What JSON writing and reading share: the options and the names of JSON node types.

The per-schema functions live in ``_writer`` (Connect → JSON values, for
``orjson.dumps``) and ``_reader`` (``orjson.loads`` output → Connect values).
"""

from __future__ import annotations

import decimal as _decimal
from typing import Any

from smt.data import Decimal, Schema, Type


class CodecOptions:
    """The JsonConverter settings that change how values are written and read."""

    __slots__ = ("decimal_numeric", "replace_null_with_default")

    def __init__(self, decimal_numeric: bool = False, replace_null_with_default: bool = True) -> None:
        self.decimal_numeric = decimal_numeric
        self.replace_null_with_default = replace_null_with_default


def json_type_name(value: Any) -> str:
    """The JSON node type of a decoded value, as Jackson names it in messages."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, (int, float, _decimal.Decimal)):
        return "NUMBER"
    if isinstance(value, str):
        return "STRING"
    if isinstance(value, list):
        return "ARRAY"
    if isinstance(value, dict):
        return "OBJECT"
    return type(value).__name__


def needs_exact_numbers(schema: Schema | None) -> bool:
    """True when ``schema`` holds a Decimal, whose JSON numbers must not pass through float."""
    if schema is None:
        return False
    if schema.name == Decimal.LOGICAL_NAME:
        return True
    if schema.type is Type.STRUCT:
        return any(needs_exact_numbers(f.schema) for f in schema.fields)
    if schema.type is Type.MAP:
        return needs_exact_numbers(schema.key_schema) or needs_exact_numbers(schema.value_schema)
    if schema.type is Type.ARRAY:
        return needs_exact_numbers(schema.value_schema)
    return False
