"""Expanding a JSON string payload into a Connect struct, as Debezium's EventRouter does.

Debezium 3.6.1 (``EventRouterDelegate`` with ``table.expand.json.payload=true``, ``JsonSchemaData``)
parses the payload with Jackson, infers a schema from the document, then builds the value.  Its
quirks are honoured, because they decide what a consumer receives:

- Only a payload that *starts* with ``{`` or ``[`` is parsed; Jackson reads the first JSON value
  and ignores what follows it.  Any failure leaves the payload as it was, with a warning.
- The schema is inferred first and kept even when building the value then fails: the payload stays
  the string but carries the inferred schema.  That is what happens to a top-level array (its
  schema is an array, the value must be a struct), to an integer beyond 64 bits (a FLOAT64 field
  given a BigDecimal) and to values that do not fit the merged schema of an array of objects.
- Numbers: an integer that fits 32 bits is INT32, one that fits 64 bits INT64, anything else
  FLOAT64.  A null field is left out of the schema (``table.json.payload.null.behavior=ignore``) or
  becomes OPTIONAL_BYTES (``optional_bytes``); an empty array is left out.  Each object is an
  optional struct named by its path from the payload column (``payload``, ``payload.address``).
- An array takes the schema of its first non-null element; elements of another JSON type, or
  numbers of another width, make the expansion fail.  The objects of an array are merged into one
  struct: a field keeps its first schema, except that OPTIONAL_BYTES (a null) gives way.  When the
  objects differ, Debezium merges their schemas in the order of a ``HashSet`` (identity hash codes,
  so it may change from one JVM run to the next) and the merged struct is required; here they are
  merged in the order they appear.
"""

from __future__ import annotations

import json
from typing import Any

from smt.data import Schema, SchemaBuilder, Struct, Type

__all__ = ["ExpansionFailed", "expand_json_payload", "parse_json_payload"]

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)


class ExpansionFailed(ValueError):
    """The payload cannot be expanded (Debezium logs "JSON expansion failed" and keeps it)."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON number {name}")  # Jackson refuses NaN and Infinity by default


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def parse_json_payload(text: str) -> Any:
    """The first JSON value of ``text``, which must start with ``{`` or ``[`` (trailing text is ignored)."""
    if not text.startswith(("{", "[")):
        raise ExpansionFailed(f"Unable to parse payload starting with '{text[:1]}'")
    try:
        return _DECODER.raw_decode(text)[0]
    except ValueError as exc:
        raise ExpansionFailed(f"invalid JSON payload: {exc}") from None


def expand_json_payload(document: Any, name: str, bytes_for_null: bool) -> tuple[Schema | None, Any, bool]:
    """``(schema, value, built)`` for a parsed payload: ``built`` is False when the schema was inferred
    but the value could not be built (the caller keeps the string payload with that schema).

    Raises :class:`ExpansionFailed` when no schema can be inferred.
    """
    schema = _InferSchema(bytes_for_null).of(name, document)
    if schema is None or schema.type is not Type.STRUCT or not isinstance(document, dict):
        return schema, None, False  # Debezium's ``new Struct(schema)`` throws: no struct schema
    try:
        return schema, _struct(document, schema), True
    except ExpansionFailed:
        return schema, None, False


def _number_schema(value: int | float) -> Schema:
    if isinstance(value, int) and _INT32[0] <= value <= _INT32[1]:
        return Schema.OPTIONAL_INT32_SCHEMA
    if isinstance(value, int) and _INT64[0] <= value <= _INT64[1]:
        return Schema.OPTIONAL_INT64_SCHEMA
    return Schema.OPTIONAL_FLOAT64_SCHEMA


def _json_type(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, (int, float)):
        return "NUMBER"
    if isinstance(value, str):
        return "STRING"
    return "ARRAY" if isinstance(value, list) else "OBJECT"


class _InferSchema:
    """Debezium's ``JsonSchemaData.toConnectSchema``."""

    def __init__(self, bytes_for_null: bool) -> None:
        self.bytes_for_null = bytes_for_null

    def of(self, key: str | None, node: Any) -> Schema | None:
        kind = _json_type(node)
        if kind == "STRING":
            return Schema.OPTIONAL_STRING_SCHEMA
        if kind == "BOOLEAN":
            return Schema.OPTIONAL_BOOLEAN_SCHEMA
        if kind == "NUMBER":
            return _number_schema(node)
        if kind == "ARRAY":
            return SchemaBuilder.array(self._element_schema(key, node)).optional().build() if node else None
        if kind == "OBJECT":
            builder = SchemaBuilder.struct().name(key).optional()
            for name, value in node.items():  # JSON keys are unique once parsed: no name comes twice
                field_schema = self.of(f"{key}.{name}" if key else name, value)
                if field_schema is not None:
                    builder.field(name, field_schema)
            return builder.build()
        return Schema.OPTIONAL_BYTES_SCHEMA if self.bytes_for_null else None

    def _element_schema(self, key: str | None, array: list) -> Schema:
        sample = self._first_element(array)
        if isinstance(sample, dict):
            merged = None
            distinct: list[Schema] = []
            for element in array:
                if isinstance(element, dict):
                    schema = self.of(key, element)
                    if schema not in distinct:
                        distinct.append(schema)
            for schema in distinct:
                merged = _merge(merged, schema)
            return merged
        schema = self.of(None, sample)
        if schema is None:
            raise ExpansionFailed("Array has unrecognized member schema.")
        return schema

    def _first_element(self, array: list) -> Any:
        reference = None
        reference_schema = None
        for element in array:
            if element is None:
                continue
            if reference is None:
                reference = element
            if _json_type(element) != _json_type(reference):
                raise ExpansionFailed("Field is not a homogenous array.")
            if _json_type(reference) == "NUMBER":
                reference_schema = reference_schema or _number_schema(reference)
                if _number_schema(element) is not reference_schema:
                    raise ExpansionFailed("Field is not a homogenous array, different number types.")
        return reference


def _merge(left: Schema | None, right: Schema) -> Schema:
    if left is None:
        return right
    fields = {field.name: field.schema for field in left.fields}
    for field in right.fields:
        old = fields.get(field.name)
        if old is None or (old != field.schema and old.type is Type.BYTES and field.schema.type is not Type.BYTES):
            fields[field.name] = field.schema
    builder = SchemaBuilder.struct().name(left.name)  # copySchemaBasics: the merged struct is required
    for name, schema in fields.items():
        builder.field(name, schema)
    return builder.build()


def _struct(document: dict, schema: Schema) -> Struct:
    """Debezium's ``jsonNodeToStructInternal``: the fields of ``schema`` the document has, each checked
    as Kafka's ``Struct.put`` checks it (a Java Integer fits INT32 only, a Long INT64 only)."""
    struct = Struct(schema)
    for field in schema.fields:
        if field.name in document:
            struct.put_valid(field, _value(document[field.name], field.schema))
    return struct


_KIND_OF_TYPE = {
    Type.STRING: "STRING",
    Type.BOOLEAN: "BOOLEAN",
    Type.INT32: "NUMBER",
    Type.INT64: "NUMBER",
    Type.FLOAT64: "NUMBER",
    Type.ARRAY: "ARRAY",
    Type.STRUCT: "OBJECT",
}


def _value(node: Any, schema: Schema | None) -> Any:
    kind = _json_type(node)
    if kind == "NULL":
        if schema is not None and not schema.optional:
            raise ExpansionFailed("Invalid value: null used for a required field")
        return None
    if schema is None or _KIND_OF_TYPE.get(schema.type) != kind:
        raise ExpansionFailed(f"a JSON {kind.lower()} does not fit schema type {schema and schema.type}")
    if kind == "NUMBER" and (_number_schema(node).type is not schema.type or _beyond_int64(node)):
        raise ExpansionFailed(f"the number {node} does not fit schema type {schema.type}")
    if kind == "ARRAY":
        return [_value(element, schema.value_schema) for element in node]
    if kind == "OBJECT":
        return _struct(node, schema)
    return float(node) if schema.type is Type.FLOAT64 else node


def _beyond_int64(node: Any) -> bool:
    # Jackson's BigIntegerNode gives a BigDecimal, which no Connect schema type takes.
    return isinstance(node, int) and not isinstance(node, bool) and not _INT64[0] <= node <= _INT64[1]
