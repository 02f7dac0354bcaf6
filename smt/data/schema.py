"""Kafka Connect schemas: :class:`Schema`, :class:`Field` and :class:`Type`.

A schema is immutable and hashable, so transforms can cache what they derive
from one (``cache[schema] = updated``).  Equality follows Kafka's
``ConnectSchema.equals``: type, optional, default, name, version, doc,
parameters, fields, key and value schemas.  The hash leaves out the default
value (it may be a list or a dict) and is computed once.
"""

from __future__ import annotations

import enum
import types
from typing import Any, Iterable, Mapping

from smt.errors import DataError

__all__ = ["Field", "Schema", "SchemaMatch", "Type"]


class Type(str, enum.Enum):
    """Kafka Connect's ``Schema.Type``; the value is Kafka's lower-case name."""

    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"

    def __str__(self) -> str:
        # Kafka's messages print the enum constant: "schema type: INT32".
        return self.name

    @property
    def is_primitive(self) -> bool:
        return self not in (Type.ARRAY, Type.MAP, Type.STRUCT)


class Field:
    """One field of a struct schema: its name, position and schema."""

    __slots__ = ("name", "index", "schema")

    def __init__(self, name: str, index: int, schema: "Schema") -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "schema", schema)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Field is immutable")

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Field):
            return NotImplemented
        return self.name == other.name and self.index == other.index and self.schema == other.schema

    def __hash__(self) -> int:
        return hash((self.name, self.index, self.schema))

    def __repr__(self) -> str:
        return f"Field{{name={self.name}, index={self.index}, schema={self.schema!r}}}"

    def __reduce__(self):
        return (Field, (self.name, self.index, self.schema))


_EMPTY_PARAMETERS: Mapping[str, str] = types.MappingProxyType({})


class Schema:
    """An immutable Kafka Connect schema.

    Build one with :class:`SchemaBuilder`, or use the predefined
    ``Schema.STRING_SCHEMA``, ``Schema.OPTIONAL_INT64_SCHEMA``, ...
    ``fields``, ``field(name)``, ``key_schema`` and ``value_schema`` raise
    :class:`DataError` on types that have none, as Kafka does.
    """

    __slots__ = (
        "type",
        "optional",
        "default",
        "name",
        "version",
        "doc",
        "parameters",
        "_fields",
        "_fields_by_name",
        "_key_schema",
        "_value_schema",
        "_hash",
        "_identity_key",
    )

    # Predefined schemas, assigned below the class.
    INT8_SCHEMA: "Schema"
    INT16_SCHEMA: "Schema"
    INT32_SCHEMA: "Schema"
    INT64_SCHEMA: "Schema"
    FLOAT32_SCHEMA: "Schema"
    FLOAT64_SCHEMA: "Schema"
    BOOLEAN_SCHEMA: "Schema"
    STRING_SCHEMA: "Schema"
    BYTES_SCHEMA: "Schema"
    OPTIONAL_INT8_SCHEMA: "Schema"
    OPTIONAL_INT16_SCHEMA: "Schema"
    OPTIONAL_INT32_SCHEMA: "Schema"
    OPTIONAL_INT64_SCHEMA: "Schema"
    OPTIONAL_FLOAT32_SCHEMA: "Schema"
    OPTIONAL_FLOAT64_SCHEMA: "Schema"
    OPTIONAL_BOOLEAN_SCHEMA: "Schema"
    OPTIONAL_STRING_SCHEMA: "Schema"
    OPTIONAL_BYTES_SCHEMA: "Schema"

    def __init__(
        self,
        type: Type,
        optional: bool = False,
        default: Any = None,
        name: str | None = None,
        version: int | None = None,
        doc: str | None = None,
        parameters: Mapping[str, str] | None = None,
        fields: Iterable[Field] | None = None,
        key_schema: "Schema | None" = None,
        value_schema: "Schema | None" = None,
    ) -> None:
        type = Type(type)
        set_ = object.__setattr__
        set_(self, "type", type)
        set_(self, "optional", bool(optional))
        set_(self, "default", default)
        set_(self, "name", name)
        set_(self, "version", version)
        set_(self, "doc", doc)
        set_(
            self,
            "parameters",
            types.MappingProxyType(dict(parameters)) if parameters else _EMPTY_PARAMETERS,
        )
        field_tuple = tuple(fields or ()) if type is Type.STRUCT else ()
        set_(self, "_fields", field_tuple)
        set_(self, "_fields_by_name", {f.name: f for f in field_tuple})
        set_(self, "_key_schema", key_schema)
        set_(self, "_value_schema", value_schema)
        set_(self, "_hash", None)
        set_(self, "_identity_key", None)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Schema is immutable; use SchemaBuilder to derive a new one")

    @property
    def fields(self) -> tuple[Field, ...]:
        if self.type is not Type.STRUCT:
            raise DataError("Cannot list fields on non-struct type")
        return self._fields

    def field(self, name: str) -> Field | None:
        """The field called ``name``, or None when the struct has none."""
        if self.type is not Type.STRUCT:
            raise DataError("Cannot look up fields on non-struct type")
        return self._fields_by_name.get(name)

    @property
    def key_schema(self) -> "Schema | None":
        if self.type is not Type.MAP:
            raise DataError("Cannot look up key schema on non-map type")
        return self._key_schema

    @property
    def value_schema(self) -> "Schema | None":
        if self.type is not Type.MAP and self.type is not Type.ARRAY:
            raise DataError("Cannot look up value schema on non-array and non-map type")
        return self._value_schema

    @property
    def schema(self) -> "Schema":
        return self

    def _identity(self) -> tuple:
        key = self._identity_key
        if key is None:
            key = self._compute_identity()
            object.__setattr__(self, "_identity_key", key)
        return key

    def _compute_identity(self) -> tuple:
        return (
            self.type,
            self.optional,
            self.name,
            self.version,
            self.doc,
            tuple(sorted(self.parameters.items())),
            self._fields,
            self._key_schema,
            self._value_schema,
        )

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Schema):
            return NotImplemented
        if hash(self) != hash(other):
            return False
        return self._identity() == other._identity() and _same_default(self.default, other.default)

    def __hash__(self) -> int:
        cached = self._hash
        if cached is None:
            cached = hash(self._identity())
            object.__setattr__(self, "_hash", cached)
        return cached

    def __repr__(self) -> str:
        label = f"{self.name}:{self.type}" if self.name else str(self.type)
        return f"Schema{{{label}}}"

    def __reduce__(self):
        return (
            Schema,
            (
                self.type,
                self.optional,
                self.default,
                self.name,
                self.version,
                self.doc,
                dict(self.parameters),
                self._fields,
                self._key_schema,
                self._value_schema,
            ),
        )


class SchemaMatch:
    """``match(other)``: is ``other`` equal to this schema?

    Remembers the equal schema objects it has met, so that a run of records
    carrying equal-but-distinct schema objects pays for one deep comparison,
    not one per record.
    """

    __slots__ = ("schema", "known")

    def __init__(self, schema: "Schema") -> None:
        self.schema = schema
        self.known: list[Schema] = [schema]

    def __call__(self, other: "Schema") -> bool:
        for known in self.known:
            if other is known:
                return True
        if other != self.schema:
            return False
        if len(self.known) < 8:
            self.known.append(other)
        return True


def _same_default(a: Any, b: Any) -> bool:
    # bool is an int in Python: keep True distinct from 1, as Java does.
    if type(a) is not type(b) and (isinstance(a, bool) or isinstance(b, bool)):
        return False
    return a == b


def _predefine() -> None:
    for type_ in (
        Type.INT8,
        Type.INT16,
        Type.INT32,
        Type.INT64,
        Type.FLOAT32,
        Type.FLOAT64,
        Type.BOOLEAN,
        Type.STRING,
        Type.BYTES,
    ):
        setattr(Schema, f"{type_.name}_SCHEMA", Schema(type_))
        setattr(Schema, f"OPTIONAL_{type_.name}_SCHEMA", Schema(type_, optional=True))


_predefine()
