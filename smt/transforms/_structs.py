"""Building derived struct schemas and structs, shared by the schema'd paths."""

from __future__ import annotations

from typing import Any, Iterable

from smt.config import ConfigDef, ConfigType, Importance

__all__ = [
    "REPLACE_NULL_WITH_DEFAULT",
    "define_replace_null",
    "copy_basics",
    "field_value",
    "optional_schema",
]

REPLACE_NULL_WITH_DEFAULT = "replace.null.with.default"


def define_replace_null(config_def: ConfigDef) -> ConfigDef:
    """``config_def`` plus Kafka's ``replace.null.with.default`` key (default true)."""
    return config_def.define(
        REPLACE_NULL_WITH_DEFAULT,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.MEDIUM,
        "Whether to replace fields that have a default value and that are null to the default "
        "value. When set to true, the default value is used, otherwise null is used.",
    )


def copy_basics(schema: Any, builder: Any = None) -> Any:
    """A struct builder with ``schema``'s name, version, doc and parameters (not optionality,
    as Kafka's ``SchemaUtil.copySchemaBasics``)."""
    from smt.data import SchemaBuilder

    builder = builder if builder is not None else SchemaBuilder.struct()
    builder.name(schema.name).version(schema.version).doc(schema.doc)
    if schema.parameters:
        builder.parameters(dict(schema.parameters))
    return builder


def field_value(struct: Any, field: Any, replace_null_with_default: bool) -> Any:
    """A field's value, with or without falling back to the schema default."""
    if replace_null_with_default:
        return struct.get(field)
    return struct.get_without_default(field)


def optional_schema(schema: Any) -> Any:
    """``schema`` made optional (the same schema when it already is)."""
    from smt.data import SchemaBuilder

    if schema.optional:
        return schema
    return SchemaBuilder.copy_of(schema).optional().build()


def struct_from(schema: Any, values: Iterable[tuple[str, Any]]) -> Any:
    from smt.data import Struct

    struct = Struct(schema)
    for name, value in values:
        struct.put(name, value)
    return struct
