"""Connect schemas to and from the JSON form JsonConverter puts in its envelope.

Type names: boolean, int8, int16, int32, int64, float, double, bytes,
string, array (``items``), map (``keys``, ``values``), struct (``fields``,
each with ``"field": name``); then ``optional``, ``name``, ``version``,
``doc``, ``parameters``, ``default`` in Kafka's key order.
"""

from __future__ import annotations

from typing import Any

from converters.json._codec import CodecOptions
from converters.json._reader import compile_reader
from converters.json._writer import compile_writer
from smt.data import Schema, SchemaBuilder, Type
from smt.errors import DataError

_TYPE_NAMES = {
    Type.BOOLEAN: "boolean",
    Type.INT8: "int8",
    Type.INT16: "int16",
    Type.INT32: "int32",
    Type.INT64: "int64",
    Type.FLOAT32: "float",
    Type.FLOAT64: "double",
    Type.BYTES: "bytes",
    Type.STRING: "string",
    Type.ARRAY: "array",
    Type.MAP: "map",
    Type.STRUCT: "struct",
}
_TYPES_BY_NAME = {name: type_ for type_, name in _TYPE_NAMES.items()}


def to_json_schema(schema: Schema | None, options: CodecOptions) -> dict[str, Any] | None:
    """The envelope's ``schema`` object for ``schema`` (None for no schema)."""
    if schema is None:
        return None
    node: dict[str, Any] = {"type": _TYPE_NAMES[schema.type]}
    if schema.type is Type.ARRAY:
        node["items"] = to_json_schema(schema.value_schema, options)
    elif schema.type is Type.MAP:
        node["keys"] = to_json_schema(schema.key_schema, options)
        node["values"] = to_json_schema(schema.value_schema, options)
    elif schema.type is Type.STRUCT:
        node["fields"] = [{**to_json_schema(field.schema, options), "field": field.name} for field in schema.fields]
    node["optional"] = schema.optional
    if schema.name is not None:
        node["name"] = schema.name
    if schema.version is not None:
        node["version"] = schema.version
    if schema.doc is not None:
        node["doc"] = schema.doc
    if schema.parameters:
        node["parameters"] = dict(schema.parameters)
    if schema.default is not None:
        node["default"] = compile_writer(schema, options)(schema.default)
    return node


def from_json_schema(node: Any, options: CodecOptions) -> Schema | None:
    """The Connect schema an envelope's ``schema`` object describes (None for ``null``)."""
    if node is None:
        return None
    if not isinstance(node, dict):
        raise DataError(f"Schema must be a JSON object, found {type(node).__name__}")
    type_name = node.get("type")
    if not isinstance(type_name, str):
        raise DataError("Schema must contain 'type' field")
    type_ = _TYPES_BY_NAME.get(type_name)
    if type_ is None:
        raise DataError(f"Unknown schema type: {type_name}")
    builder = _builder_for(type_, node, options)
    if node.get("optional") is True:
        builder.optional()
    else:
        builder.required()
    if isinstance(node.get("name"), str):
        builder.name(node["name"])
    version = node.get("version")
    if type(version) is int:
        builder.version(version)
    if isinstance(node.get("doc"), str):
        builder.doc(node["doc"])
    parameters = node.get("parameters")
    if isinstance(parameters, dict):
        for key, value in parameters.items():
            if not isinstance(value, str):
                raise DataError("Schema parameters must have string values.")
            builder.parameter(key, value)
    if "default" in node:
        _set_default(builder, node["default"], type_, options)
    return builder.build()


def _set_default(builder: SchemaBuilder, default: Any, type_: Type, options: CodecOptions) -> None:
    """``default`` (a JSON value) as the schema's default, as Kafka's JsonConverter reads it: a null
    default is no default on an optional schema and an error on a required one, and a struct schema
    takes none (Kafka builds the default against the unfinished schema, which its check refuses)."""
    if default is None:
        if not builder.build().optional:
            raise DataError(f"Invalid null value for required {type_} field")
        return
    if type_ is Type.STRUCT:
        raise DataError("Invalid default value")
    builder.default_value(compile_reader(builder.build(), options)(default))


def _builder_for(type_: Type, node: dict, options: CodecOptions) -> SchemaBuilder:
    if type_ is Type.ARRAY:
        items = node.get("items")
        if items is None:
            raise DataError("Array schema did not specify the element type")
        return SchemaBuilder.array(from_json_schema(items, options))
    if type_ is Type.MAP:
        if node.get("keys") is None:
            raise DataError("Map schema did not specify the key type")
        if node.get("values") is None:
            raise DataError("Map schema did not specify the value type")
        return SchemaBuilder.map(from_json_schema(node["keys"], options), from_json_schema(node["values"], options))
    if type_ is Type.STRUCT:
        fields = node.get("fields")
        if not isinstance(fields, list):
            raise DataError('Struct schema\'s "fields" argument is not an array.')
        builder = SchemaBuilder.struct()
        for field in fields:
            name = field.get("field") if isinstance(field, dict) else None
            if not isinstance(name, str):
                raise DataError("Struct schema's field name not specified properly")
            builder.field(name, from_json_schema(field, options))
        return builder
    return SchemaBuilder(type_)
