"""Cast: cast fields, or the whole key/value, to another primitive type."""

from __future__ import annotations

from typing import Any

from smt.config import REQUIRED, ConfigDef, ConfigType, Importance
from smt.errors import ConfigError, DataError
from smt.record import Record
from smt.transforms._casting import TARGET_TYPES, cast_value, check_schemaless_input
from smt.transforms._field_path import FIELD_SYNTAX_VERSION, parse_path, with_field_syntax
from smt.transforms._requirements import require_map, require_struct
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._struct_paths import StructRewriter
from smt.transforms._structs import REPLACE_NULL_WITH_DEFAULT, define_replace_null
from smt.transforms._variant import PartTransform, key_value_variants

PURPOSE = "cast types"
WHOLE_VALUE = None
_NOT_CASTABLE_TO = ("bytes", "array", "map", "struct")


def _parse_spec(entries: list[str], key: str) -> dict[str | None, str]:
    if not entries or entries == [""]:
        raise ConfigError("Must specify at least one field to cast.")
    casts: dict[str | None, str] = {}
    for entry in entries:
        parts = entry.split(":")
        if len(parts) > 2:
            raise ConfigError.for_key(key, f"Invalid rename mapping: {entry}", entries)
        name, target = (WHOLE_VALUE, parts[0]) if len(parts) == 1 else (parts[0].strip(), parts[1])
        written = target.strip()
        target = written.lower()
        if target in _NOT_CASTABLE_TO:
            raise ConfigError(
                f"Cast transformation does not support casting to {target.upper()}; supported types are "
                f"[{', '.join(t.upper() for t in TARGET_TYPES)}]"
            )
        if target not in TARGET_TYPES:
            raise ConfigError(f"Invalid type found in casting spec: {written}")
        casts[name] = target
    if WHOLE_VALUE in casts and len(entries) > 1:
        raise ConfigError(
            "Cast transformations that specify a type to cast the entire value to "
            "may only specify a single cast in their spec"
        )
    return casts


class Cast(PartTransform):
    """Cast fields (``spec=f1:int32,f2:string``) or the whole value (``spec=int64``).

    Types: int8, int16, int32, int64, float32, float64, boolean, string. Numbers narrow as Java
    does, strings are parsed, numbers become booleans by ``!= 0``, bytes become base64 strings,
    dates, times and timestamps ISO strings (UTC). A tombstone passes through. With
    ``field.syntax.version=V2`` field names are paths into nested maps and structs.
    """

    config_def = with_field_syntax(
        define_replace_null(
            ConfigDef().define(
                "spec",
                ConfigType.LIST,
                REQUIRED,
                None,
                Importance.HIGH,
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
        targets = {path.steps: self.casts[name] for name, path in self.paths.items()}
        self.rewriter = StructRewriter(
            targets,
            lambda steps, schema: self._target_schema(schema, targets[steps]),
            lambda steps, schema, value: _cast_with_schema(schema, value, targets[steps]),
            self.replace_null_with_default,
            keep_optional=True,
        )

    def apply_schemaless(self, record: Record, value: Any) -> Any:
        if WHOLE_VALUE in self.casts:
            check_schemaless_input(value)
            return cast_value(value, self.casts[WHOLE_VALUE])
        updated = dict(require_map(value, PURPOSE))
        for name, target in self.casts.items():
            path = self.paths[name]

            def change(parent: dict, last=path.last, target=target) -> dict:
                copy = dict(parent)
                item = parent.get(last)
                if item is not None:
                    check_schemaless_input(item)
                copy[last] = cast_value(item, target)
                return copy

            updated = path.update_map(updated, change)
        return updated

    def apply_with_schema(self, record: Record, schema: Any, value: Any):
        if WHOLE_VALUE in self.casts:
            new_schema = self.schema_cache.get(schema, self._whole_schema)
            return new_schema, _cast_with_schema(schema, value, self.casts[WHOLE_VALUE])
        struct = require_struct(value, PURPOSE)
        new_schema = self.schema_cache.get(struct.schema, self.rewriter.schema)
        return new_schema, self.rewriter.value(struct, new_schema)

    def _target_schema(self, source: Any, target: str) -> Any:
        """The schema of a cast field: ``target``, optional and with a default as ``source`` is.

        As in Kafka, ``source``'s type is checked only through its default: a MAP field that is
        null casts to null, and fails only where it holds a value.
        """
        from smt.data import SchemaBuilder, Type

        builder = SchemaBuilder(Type(target))
        if source.optional:
            builder.optional()
        if source.default is not None:
            builder.default_value(_cast_with_schema(source, source.default, target))
        return builder.build()

    def _whole_schema(self, schema: Any) -> Any:
        return self._target_schema(schema, self.casts[WHOLE_VALUE])


def _cast_with_schema(schema: Any, value: Any, target: str) -> Any:
    """Kafka's ``castValueToType`` with a schema: null stays null, else ``schema`` must be castable."""
    if value is None:
        return None
    _check_input(schema)
    return cast_value(value, target, _is_float32(schema))


def _is_float32(schema: Any) -> bool:
    return schema.type.value == "float32"


def _check_input(schema: Any) -> None:
    from smt.data import Type

    if schema.type in (Type.ARRAY, Type.MAP, Type.STRUCT):
        raise DataError(
            f"Cast transformation does not support casting from {schema.type}; supported types are "
            "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]"
        )


CastKey, CastValue = key_value_variants(Cast, "Cast", __name__)
