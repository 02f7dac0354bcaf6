"""Kafka Connect's fluent :class:`SchemaBuilder`."""

from __future__ import annotations

from typing import Any, Mapping

from smt.data.schema import Field, Schema, Type
from smt.data.struct import validate_value
from smt.errors import DataError

__all__ = ["SchemaBuilder", "SchemaBuilderError", "copy_schema_basics"]


class SchemaBuilderError(DataError):
    """A :class:`SchemaBuilder` call that Kafka would reject (``SchemaBuilderException``)."""


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
        return self._schema(self._default)

    schema = build

    def _preview(self) -> Schema:
        # The schema as built so far without its default: what a default must fit.
        return self._schema(None)

    def _schema(self, default: Any) -> Schema:
        return Schema(
            self._type,
            bool(self._optional),
            default,
            self._name,
            self._version,
            self._doc,
            self._parameters,
            tuple(self._fields.values()),
            self._key_schema,
            self._value_schema,
        )

    @staticmethod
    def _check_can_set(attribute: str, current: Any, new: Any) -> None:
        if current is not None and current != new:
            raise SchemaBuilderError(f"Invalid SchemaBuilder call: {attribute} has already been set.")


# Kafka spells these ``SchemaBuilder.bool()`` / ``.bytes()`` / ``.type(t)``.
SchemaBuilder.bool = staticmethod(SchemaBuilder.boolean)
SchemaBuilder.bytes = staticmethod(SchemaBuilder.bytes_)


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
