"""Kafka Connect's :class:`Struct`: a record value laid out by a struct schema."""

from __future__ import annotations

from typing import Any, Iterator

from smt.data.schema import Field, Schema, Type
from smt.errors import DataError

__all__ = ["Struct"]


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
        struct = _rebuild(schema, values)
        if len(struct._values) != len(schema.fields):
            raise DataError(f"Struct with {len(schema.fields)} fields cannot hold {len(struct._values)} values")
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
        found.schema.validate_value(value, found.name)
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
            field.schema.validate_value(value, field.name)

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
    struct = Struct(schema)
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
