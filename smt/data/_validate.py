"""Checking a Python value against a schema (Kafka's ``ConnectSchema.validateValue``)."""

from __future__ import annotations

from typing import Any

from smt.data.logical import LOGICAL_NAMES
from smt.data.schema import Schema, Type
from smt.errors import DataError

_INT_RANGES = {
    Type.INT8: (-(1 << 7), (1 << 7) - 1),
    Type.INT16: (-(1 << 15), (1 << 15) - 1),
    Type.INT32: (-(1 << 31), (1 << 31) - 1),
    Type.INT64: (-(1 << 63), (1 << 63) - 1),
}


_CLASSES_BY_TYPE: dict[Type, tuple[type, ...]] = {
    Type.INT8: (int,),
    Type.INT16: (int,),
    Type.INT32: (int,),
    Type.INT64: (int,),
    Type.FLOAT32: (float,),
    Type.FLOAT64: (float,),
    Type.BOOLEAN: (bool,),
    Type.STRING: (str,),
    Type.BYTES: (bytes, bytearray, memoryview),
    Type.ARRAY: (list, tuple),
    Type.MAP: (dict,),
}


def _expected_classes(schema: Schema) -> tuple[type, ...]:
    if schema.name:
        logical = LOGICAL_NAMES.get(schema.name)
        if logical is not None:
            return logical
    classes = _CLASSES_BY_TYPE.get(schema.type)
    if classes is None:  # STRUCT: imported late, struct.py imports this module's users
        from smt.data.struct import Struct

        classes = (Struct,)
    return classes


def _location(field_name: str | None) -> str:
    return "value" if field_name is None else f'field: "{field_name}"'


def validate_value(schema: Schema, value: Any, field_name: str | None) -> None:
    """Raise :class:`DataError` with Kafka's message when ``value`` does not fit ``schema``."""
    _validate(schema, value, _location(field_name))


_SIMPLE = {Type.STRING: str, Type.BOOLEAN: bool, Type.FLOAT64: float, Type.FLOAT32: float}


def _validate(schema: Schema, value: Any, location: str) -> None:
    # The common case first: an unnamed primitive holding exactly its Python type.
    if type(value) is _SIMPLE.get(schema.type) and not schema.name:
        return
    if value is None:
        if not schema.optional:
            raise DataError(f"Invalid value: null used for required {location}, schema type: {schema.type}")
        return
    expected = _expected_classes(schema)
    # bool is an int subclass in Python; Kafka would never take a Boolean for an integer.
    mismatched = not isinstance(value, expected) or (isinstance(value, bool) and schema.type is not Type.BOOLEAN)
    if mismatched:
        named = f' "{schema.name}"' if schema.name else ""
        raise DataError(
            f"Invalid Python object for schema{named} with type {schema.type}: {type(value).__name__} for {location}"
        )
    _validate_content(schema, value, location)


def _validate_content(schema: Schema, value: Any, location: str) -> None:
    type_ = schema.type
    bounds = _INT_RANGES.get(type_)
    if bounds is not None and isinstance(value, int):
        if not bounds[0] <= value <= bounds[1]:
            raise DataError(f"Invalid value {value} for schema with type {type_}: out of range for {location}")
    elif type_ is Type.STRUCT:
        if value.schema != schema:
            raise DataError("Struct schemas do not match.")
        value.validate()
    elif type_ is Type.ARRAY:
        element_location = f"element of array {location}"
        element_schema = _not_null(schema.value_schema, element_location)
        for element in value:
            _validate(element_schema, element, element_location)
    elif type_ is Type.MAP:
        key_location = f"key of map {location}"
        value_location = f"value of map {location}"
        key_schema = _not_null(schema.key_schema, key_location)
        value_schema = _not_null(schema.value_schema, value_location)
        for key, item in value.items():
            _validate(key_schema, key, key_location)
            _validate(value_schema, item, value_location)


def _not_null(schema: Schema | None, location: str) -> Schema:
    if schema is None:
        raise DataError(f"No schema defined for {location}")
    return schema
