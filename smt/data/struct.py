"""Kafka Connect's :class:`Struct`, and :func:`validate_value`, the check every put runs.

A struct holds values laid out by a struct schema.  The check of a value
against a schema (Kafka's ``ConnectSchema.validateValue``) lives here with it:
a struct validates each value put into it, and a struct is itself a value the
check must recognise.
"""

from __future__ import annotations

from typing import Any, Iterator

from smt.data.logical_names import LOGICAL_NAMES
from smt.data.schema import Field, Schema, Type
from smt.errors import DataError

__all__ = ["Struct", "validate_value"]


class Struct:
    """Values for the fields of a STRUCT schema, validated as they are put.

    ``get`` falls back to the field's default when no value was put, as in
    Kafka; ``get_without_default`` does not.  ``validate()`` checks that every
    required field without a default has a value.
    """

    __slots__ = ("schema", "_values")

    def __init__(self, schema: Schema) -> None:
        if schema.type is not Type.STRUCT:
            raise DataError(f"Not a struct schema: {schema!r}")
        self.schema = schema
        self._values: list[Any] = [None] * len(schema.fields)

    @classmethod
    def from_values(cls, schema: Schema, values: list[Any], validate: bool = True) -> "Struct":
        """A struct holding ``values`` in field order.

        Converters that already checked every value against its field pass
        ``validate=False`` to skip a second pass over the record.
        """
        if schema.type is not Type.STRUCT:
            raise DataError(f"Not a struct schema: {schema!r}")
        if len(values) != len(schema.fields):
            raise DataError(f"Struct with {len(schema.fields)} fields cannot hold {len(values)} values")
        struct = _rebuild(schema, values)
        if validate:
            struct.validate()
        return struct

    def _lookup(self, field: str | Field) -> Field:
        if isinstance(field, Field):
            return field
        found = self.schema.field(field)
        if found is None:
            raise DataError(f"{field} is not a valid field name")
        return found

    def get(self, field: str | Field) -> Any:
        """The field's value, or its schema's default when none was put."""
        found = self._lookup(field)
        value = self._values[found.index]
        if value is None:
            return found.schema.default
        return value

    def get_without_default(self, field: str | Field) -> Any:
        return self._values[self._lookup(field).index]

    def put(self, field: str | Field, value: Any) -> "Struct":
        """Set a field after validating ``value`` against its schema; returns ``self``."""
        if field is None:
            raise DataError("field cannot be null.")
        found = self._lookup(field)
        validate_value(found.schema, value, found.name)
        self._values[found.index] = value
        return self

    def put_valid(self, field: Field, value: Any) -> "Struct":
        """Set ``field`` (one of this struct's schema's) to a value already valid against its schema.

        For a transform that copies a non-null value from a struct whose field
        has this very schema object: :meth:`put` would validate it a second time.
        """
        self._values[field.index] = value
        return self

    def put_all(self, values: dict[str, Any]) -> "Struct":
        for name, value in values.items():
            self.put(name, value)
        return self

    def validate(self) -> None:
        """Raise :class:`DataError` unless every field holds a valid value."""
        for field in self.schema.fields:
            value = self._values[field.index]
            if value is None and (field.schema.optional or field.schema.default is not None):
                continue
            validate_value(field.schema, value, field.name)

    def _get_checked(self, name: str, type_: Type) -> Any:
        found = self._lookup(name)
        if found.schema.type is not type_:
            raise DataError(f"Field '{name}' is not of type {type_}")
        return self._values[found.index]

    def get_int8(self, name: str) -> int | None:
        return self._get_checked(name, Type.INT8)

    def get_int16(self, name: str) -> int | None:
        return self._get_checked(name, Type.INT16)

    def get_int32(self, name: str) -> int | None:
        return self._get_checked(name, Type.INT32)

    def get_int64(self, name: str) -> int | None:
        return self._get_checked(name, Type.INT64)

    def get_float32(self, name: str) -> float | None:
        return self._get_checked(name, Type.FLOAT32)

    def get_float64(self, name: str) -> float | None:
        return self._get_checked(name, Type.FLOAT64)

    def get_boolean(self, name: str) -> bool | None:
        return self._get_checked(name, Type.BOOLEAN)

    def get_string(self, name: str) -> str | None:
        return self._get_checked(name, Type.STRING)

    def get_bytes(self, name: str) -> bytes | None:
        return self._get_checked(name, Type.BYTES)

    def get_array(self, name: str) -> list | None:
        return self._get_checked(name, Type.ARRAY)

    def get_map(self, name: str) -> dict | None:
        return self._get_checked(name, Type.MAP)

    def get_struct(self, name: str) -> "Struct | None":
        return self._get_checked(name, Type.STRUCT)

    def values_as_put(self) -> list[Any]:
        """The values in field order, None where none was put (no default applied); a copy."""
        return list(self._values)

    def items(self) -> Iterator[tuple[str, Any]]:
        """``(field name, value)`` pairs in field order, defaults applied."""
        for field in self.schema.fields:
            yield field.name, self.get(field)

    def to_dict(self) -> dict[str, Any]:
        """A plain dict, nested structs included (defaults applied)."""
        return {name: _plain(value) for name, value in self.items()}

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Struct):
            return NotImplemented
        return self.schema == other.schema and self._values == other._values

    def __hash__(self) -> int:
        return hash(self.schema)

    def __repr__(self) -> str:
        parts = [
            f"{field.name}={value!r}" for field, value in zip(self.schema.fields, self._values) if value is not None
        ]
        return "Struct{" + ",".join(parts) + "}"

    def __reduce__(self):
        return (_rebuild, (self.schema, self._values))


def _rebuild(schema: Schema, values: list[Any]) -> Struct:
    """A struct of ``schema`` holding a copy of ``values``, unchecked (from_values and unpickling check)."""
    struct = object.__new__(Struct)
    struct.schema = schema
    struct._values = list(values)
    return struct


def _plain(value: Any) -> Any:
    if isinstance(value, Struct):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


# --- checking a value against its schema ---------------------------------------

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
    return _CLASSES_BY_TYPE.get(schema.type) or (Struct,)


def _location(field_name: str | None) -> str:
    return "value" if field_name is None else f'field: "{field_name}"'


def validate_value(schema: Schema, value: Any, field_name: str | None = None) -> None:
    """Raise :class:`DataError` with Kafka's message when ``value`` does not fit ``schema``.

    Kafka's ``ConnectSchema.validateValue``; ``field_name`` names the value in the message.
    """
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
