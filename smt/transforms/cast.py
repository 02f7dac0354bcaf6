"""Cast: cast fields, or the whole key/value, to another primitive type."""

from __future__ import annotations

from typing import Any

from smt.config import REQUIRED, ConfigDef, ConfigType, Importance
from smt.errors import ConfigError, DataError
from smt.record import Record
from smt.transforms._casting import TARGET_TYPES, cast_value
from smt.transforms._field_path import FIELD_SYNTAX_VERSION, parse_path, with_field_syntax
from smt.transforms._requirements import require_map, require_struct
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._structs import REPLACE_NULL_WITH_DEFAULT, copy_basics, define_replace_null, field_value
from smt.transforms._variant import PartTransform, key_value_variants

PURPOSE = "cast types"
WHOLE_VALUE = None


def _parse_spec(entries: list[str], key: str) -> dict[str | None, str]:
    if not entries or entries == [""]:
        raise ConfigError("Must specify at least one field to cast.")
    casts: dict[str | None, str] = {}
    for entry in entries:
        parts = entry.split(":")
        if len(parts) > 2:
            raise ConfigError.for_key(key, f"Invalid rename mapping: {entry}", entries)
        name, target = (WHOLE_VALUE, parts[0]) if len(parts) == 1 else (parts[0].strip(), parts[1])
        target = target.strip().lower()
        if target == "bytes":
            raise ConfigError(
                f"Cast transformation does not support casting to BYTES; supported types are "
                f"[{', '.join(t.upper() for t in TARGET_TYPES)}]"
            )
        if target not in TARGET_TYPES:
            raise ConfigError(f"Invalid type found in casting spec: {target}")
        casts[name] = target
    if WHOLE_VALUE in casts and len(casts) > 1:
        raise ConfigError("Cast transformations that specify a type to cast the entire value to "
                          "may only specify a single cast in their spec")
    return casts


class Cast(PartTransform):
    """Cast fields (``spec=f1:int32,f2:string``) or the whole value (``spec=int64``).

    Types: int8, int16, int32, int64, float32, float64, boolean, string. Numbers narrow as Java
    does, strings are parsed, numbers become booleans by ``!= 0``, bytes become base64 strings,
    dates, times and timestamps ISO strings (UTC). A tombstone passes through. With
    ``field.syntax.version=V2`` field names are paths into nested maps.
    """

    config_def = with_field_syntax(
        define_replace_null(
            ConfigDef().define(
                "spec", ConfigType.LIST, REQUIRED, None, Importance.HIGH,
                "List of fields and the type to cast them to of the form field1:type,field2:type "
                "to cast fields of Maps or Structs. A single type to cast the entire value. Valid "
                "types are int8, int16, int32, int64, float32, float64, boolean, and string.",
            )
        )
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        key = self.context.prefix + "spec"
        self.casts = _parse_spec(self.config["spec"], key)
        version = self.config[FIELD_SYNTAX_VERSION]
        self.paths = {name: parse_path(name, version, key) for name in self.casts if name is not None}
        self.replace_null_with_default = self.config[REPLACE_NULL_WITH_DEFAULT]
        self.schema_cache = SchemaCache()

    def apply_schemaless(self, record: Record, value: Any) -> Any:
        if WHOLE_VALUE in self.casts:
            return cast_value(value, self.casts[WHOLE_VALUE])
        updated = dict(require_map(value, PURPOSE))
        for name, target in self.casts.items():
            path = self.paths[name]

            def change(parent: dict, last=path.last, target=target) -> dict:
                copy = dict(parent)
                copy[last] = cast_value(parent.get(last), target)
                return copy

            updated = path.update_map(updated, change)
        return updated

    def apply_with_schema(self, record: Record, schema: Any, value: Any):
        from smt.data import Struct

        if WHOLE_VALUE in self.casts:
            new_schema = self.schema_cache.get(schema, self._whole_schema)
            return new_schema, cast_value(value, self.casts[WHOLE_VALUE])
        struct = require_struct(value, PURPOSE)
        new_schema = self.schema_cache.get(struct.schema, self._derive_schema)
        updated = Struct(new_schema)
        for field in struct.schema.fields:
            item = field_value(struct, field, self.replace_null_with_default)
            target = self.casts.get(field.name)
            updated.put(field.name, item if target is None else cast_value(item, target))
        return new_schema, updated

    def _target_schema(self, source: Any, target: str) -> Any:
        from smt.data import SchemaBuilder, Type

        _check_input(source)
        builder = SchemaBuilder(Type(target))
        if source.optional:
            builder.optional()
        if source.default is not None:
            builder.default_value(cast_value(source.default, target))
        return builder.build()

    def _whole_schema(self, schema: Any) -> Any:
        return self._target_schema(schema, self.casts[WHOLE_VALUE])

    def _derive_schema(self, schema: Any) -> Any:
        builder = copy_basics(schema)
        for field in schema.fields:
            target = self.casts.get(field.name)
            builder.field(field.name, field.schema if target is None else self._target_schema(field.schema, target))
        if schema.optional:
            builder.optional()
        return builder.build()


def _check_input(schema: Any) -> None:
    from smt.data import Type

    if schema.type in (Type.ARRAY, Type.MAP, Type.STRUCT):
        raise DataError(
            f"Cast transformation does not support casting from {schema.type}; supported types are "
            "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]"
        )


CastKey, CastValue = key_value_variants(Cast, "Cast", __name__)
