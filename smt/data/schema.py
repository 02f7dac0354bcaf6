"""Kafka Connect schemas: :class:`Schema`, :class:`Field` and :class:`SchemaBuilder`.

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

__all__ = ["Field", "Schema", "SchemaBuilder", "SchemaBuilderError", "Type"]


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


class SchemaBuilderError(DataError):
    """A :class:`SchemaBuilder` call that Kafka would reject (``SchemaBuilderException``)."""


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

    def validate_value(self, value: Any, field_name: str | None = None) -> None:
        """Raise :class:`DataError` when ``value`` does not fit this schema."""
        from smt.data._validate import validate_value

        validate_value(self, value, field_name)

    def _identity(self) -> tuple:
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


def _same_default(a: Any, b: Any) -> bool:
    # bool is an int in Python: keep True distinct from 1, as Java does.
    if type(a) is not type(b) and (isinstance(a, bool) or isinstance(b, bool)):
        return False
    return a == b


class SchemaBuilder:
    """Builds a :class:`Schema` fluently, like Kafka's ``SchemaBuilder``.

    ``SchemaBuilder.struct().name("x").field("a", Schema.STRING_SCHEMA).optional().build()``.
    Setting an attribute twice raises :class:`SchemaBuilderError`, as in Kafka.
    A builder may be passed wherever a schema is expected; it is built then.
    """

    def __init__(self, type: Type) -> None:
        self._type = Type(type)
        self._optional: bool | None = None
        self._default: Any = None
        self._name: str | None = None
        self._version: int | None = None
        self._doc: str | None = None
        self._parameters: dict[str, str] = {}
        self._fields: dict[str, Field] = {}
        self._key_schema: Schema | None = None
        self._value_schema: Schema | None = None

    # -- constructors -------------------------------------------------------
    @staticmethod
    def of_type(type: Type) -> "SchemaBuilder":
        if type is None:
            raise SchemaBuilderError("type cannot be null")
        return SchemaBuilder(type)

    @staticmethod
    def int8() -> "SchemaBuilder":
        return SchemaBuilder(Type.INT8)

    @staticmethod
    def int16() -> "SchemaBuilder":
        return SchemaBuilder(Type.INT16)

    @staticmethod
    def int32() -> "SchemaBuilder":
        return SchemaBuilder(Type.INT32)

    @staticmethod
    def int64() -> "SchemaBuilder":
        return SchemaBuilder(Type.INT64)

    @staticmethod
    def float32() -> "SchemaBuilder":
        return SchemaBuilder(Type.FLOAT32)

    @staticmethod
    def float64() -> "SchemaBuilder":
        return SchemaBuilder(Type.FLOAT64)

    @staticmethod
    def boolean() -> "SchemaBuilder":
        return SchemaBuilder(Type.BOOLEAN)

    @staticmethod
    def string() -> "SchemaBuilder":
        return SchemaBuilder(Type.STRING)

    @staticmethod
    def bytes_() -> "SchemaBuilder":
        return SchemaBuilder(Type.BYTES)

    @staticmethod
    def struct() -> "SchemaBuilder":
        return SchemaBuilder(Type.STRUCT)

    @staticmethod
    def array(value_schema: "Schema | SchemaBuilder") -> "SchemaBuilder":
        if value_schema is None:
            raise SchemaBuilderError("valueSchema cannot be null.")
        builder = SchemaBuilder(Type.ARRAY)
        builder._value_schema = _as_schema(value_schema)
        return builder

    @staticmethod
    def map(key_schema: "Schema | SchemaBuilder", value_schema: "Schema | SchemaBuilder") -> "SchemaBuilder":
        if key_schema is None:
            raise SchemaBuilderError("keySchema cannot be null.")
        if value_schema is None:
            raise SchemaBuilderError("valueSchema cannot be null.")
        builder = SchemaBuilder(Type.MAP)
        builder._key_schema = _as_schema(key_schema)
        builder._value_schema = _as_schema(value_schema)
        return builder

    @staticmethod
    def copy_of(schema: Schema, *, with_fields: bool = True) -> "SchemaBuilder":
        """A builder starting from ``schema``: type, basics, optional, default, fields.

        Like Kafka's ``SchemaUtil.copySchemaBasics`` plus optional and default;
        ``with_fields=False`` leaves a struct builder without fields.
        """
        if schema.type is Type.ARRAY:
            builder = SchemaBuilder.array(schema.value_schema) if schema.value_schema else SchemaBuilder(Type.ARRAY)
        elif schema.type is Type.MAP:
            builder = SchemaBuilder(Type.MAP)
            builder._key_schema, builder._value_schema = schema.key_schema, schema.value_schema
        else:
            builder = SchemaBuilder(schema.type)
        copy_schema_basics(schema, builder)
        if schema.optional:
            builder.optional()
        if schema.default is not None:
            builder.default_value(schema.default)
        if schema.type is Type.STRUCT and with_fields:
            for field in schema.fields:
                builder.field(field.name, field.schema)
        return builder

    # -- attributes ---------------------------------------------------------
    @property
    def type(self) -> Type:
        return self._type

    @property
    def is_optional(self) -> bool:
        return bool(self._optional)

    def optional(self) -> "SchemaBuilder":
        self._check_can_set("optional", self._optional, True)
        self._optional = True
        return self

    def required(self) -> "SchemaBuilder":
        self._check_can_set("optional", self._optional, False)
        self._optional = False
        return self

    def default_value(self, value: Any) -> "SchemaBuilder":
        self._check_can_set("default", self._default, value)
        from smt.data._validate import validate_value

        try:
            validate_value(self._preview(), value, None)
        except DataError as exc:
            raise SchemaBuilderError(f"Invalid default value: {exc}") from exc
        self._default = value
        return self

    def name(self, name: str | None) -> "SchemaBuilder":
        self._check_can_set("name", self._name, name)
        self._name = name
        return self

    def version(self, version: int | None) -> "SchemaBuilder":
        self._check_can_set("version", self._version, version)
        self._version = version
        return self

    def doc(self, doc: str | None) -> "SchemaBuilder":
        self._check_can_set("doc", self._doc, doc)
        self._doc = doc
        return self

    def parameter(self, key: str, value: str) -> "SchemaBuilder":
        self._parameters[key] = value
        return self

    def parameters(self, parameters: Mapping[str, str]) -> "SchemaBuilder":
        self._parameters.update(parameters)
        return self

    def field(self, name: str, schema: "Schema | SchemaBuilder") -> "SchemaBuilder":
        if self._type is not Type.STRUCT:
            raise SchemaBuilderError(f"Cannot create fields on type {self._type}")
        if name is None:
            raise SchemaBuilderError("fieldName cannot be null.")
        if schema is None:
            raise SchemaBuilderError(f"fieldSchema for field {name} cannot be null.")
        if name in self._fields:
            raise SchemaBuilderError(f"Cannot create field because of field name duplication {name}")
        self._fields[name] = Field(name, len(self._fields), _as_schema(schema))
        return self

    @property
    def fields(self) -> tuple[Field, ...]:
        if self._type is not Type.STRUCT:
            raise DataError("Cannot list fields on non-struct type")
        return tuple(self._fields.values())

    def build(self) -> Schema:
        return Schema(
            self._type,
            bool(self._optional),
            self._default,
            self._name,
            self._version,
            self._doc,
            self._parameters,
            tuple(self._fields.values()),
            self._key_schema,
            self._value_schema,
        )

    schema = build

    def _preview(self) -> Schema:
        # The schema as built so far without its default: what a default must fit.
        return Schema(
            self._type, bool(self._optional), None, self._name, self._version, self._doc,
            self._parameters, tuple(self._fields.values()), self._key_schema, self._value_schema,
        )

    @staticmethod
    def _check_can_set(attribute: str, current: Any, new: Any) -> None:
        if current is not None and current != new:
            raise SchemaBuilderError(f"Invalid SchemaBuilder call: {attribute} has already been set.")


# Kafka spells these ``SchemaBuilder.bool()`` / ``.bytes()`` / ``.type(t)``.
setattr(SchemaBuilder, "bool", staticmethod(SchemaBuilder.boolean))
setattr(SchemaBuilder, "bytes", staticmethod(SchemaBuilder.bytes_))


def _as_schema(schema: "Schema | SchemaBuilder") -> Schema:
    return schema.build() if isinstance(schema, SchemaBuilder) else schema


def copy_schema_basics(source: Schema, builder: SchemaBuilder) -> SchemaBuilder:
    """Copy name, version, doc and parameters (Kafka's ``SchemaUtil.copySchemaBasics``)."""
    builder.name(source.name)
    builder.version(source.version)
    builder.doc(source.doc)
    if source.parameters:
        builder.parameters(source.parameters)
    return builder


def _predefine() -> None:
    for type_ in (
        Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64,
        Type.BOOLEAN, Type.STRING, Type.BYTES,
    ):
        setattr(Schema, f"{type_.name}_SCHEMA", Schema(type_))
        setattr(Schema, f"OPTIONAL_{type_.name}_SCHEMA", Schema(type_, optional=True))


_predefine()
