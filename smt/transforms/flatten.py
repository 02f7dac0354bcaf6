"""Flatten: nested maps or structs become one level, names joined with a delimiter."""

from __future__ import annotations

from typing import Any

from smt.batch import RecordBatch
from smt.config import ConfigDef, ConfigType, Importance
from smt.errors import DataError
from smt.record import Record
from smt.transform import ErrorSink
from smt.transforms._requirements import require_map, require_struct_or_none, type_name
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._structs import copy_basics
from smt.transforms._variant import PartTransform, key_value_variants, map_column

PURPOSE = "flattening"
_COPIED = (bool, int, float, str, bytes, bytearray, list)


class Flatten(PartTransform):
    """Flatten nested maps (schemaless) or structs into one level, in field order.

    ``{"a": {"b": 1}}`` becomes ``{"a.b": 1}`` with the default ``delimiter``. Arrays are
    copied as they are, not descended into. With a schema, a MAP field is a data error, and a
    field under an optional struct becomes optional (taking the parent's default when it has
    one). A tombstone passes through unchanged, schema included (as in Kafka).
    """

    config_def = ConfigDef().define(
        "delimiter",
        ConfigType.STRING,
        ".",
        None,
        Importance.MEDIUM,
        "Delimiter to insert between field names from the input record when generating field "
        "names for the output record",
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.delimiter = self.config["delimiter"]
        self.schema_cache = SchemaCache()

    def _name(self, prefix: str, name: str) -> str:
        return name if not prefix else prefix + self.delimiter + name

    # --- schemaless -----------------------------------------------------------

    def apply_schemaless(self, record: Record, value: Any) -> Any:
        flat: dict = {}
        self._flatten_map(require_map(value, PURPOSE), "", flat)
        return flat

    def _flatten_map(self, value: dict, prefix: str, flat: dict) -> None:
        for key, item in value.items():
            name = self._name(prefix, key)
            if item is None or isinstance(item, _COPIED):
                flat[name] = item
            elif isinstance(item, dict):
                self._flatten_map(item, name, flat)
            elif type(item).__name__ == "Struct":
                raise DataError(
                    f"Flatten transformation does not support {type_name(item)} for record without "
                    f"schemas (for field {name})."
                )
            else:
                raise DataError(
                    f"Flatten transformation was passed a value of type {type_name(item)} which is "
                    "not supported by Connect's data API"
                )

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        if not self.schemaless_batch(batch):
            return super().apply_batch(batch, errors)

        def flatten(value):
            return None if value is None else self.apply_schemaless(None, value)

        return map_column(batch, errors, self.part.name, flatten)

    # --- with a schema ----------------------------------------------------------

    def apply_with_schema(self, record: Record, schema: Any, value: Any):
        from smt.data import Struct

        struct = require_struct_or_none(value, PURPOSE)
        new_schema = self.schema_cache.get(schema, self._derive_schema)
        updated = Struct(new_schema)
        self._flatten_struct(struct, "", updated)
        return new_schema, updated

    def _derive_schema(self, schema: Any) -> Any:
        builder = copy_basics(schema)
        self._flat_fields(schema, "", builder, schema.optional, schema.default)
        return builder.build()

    def _flat_fields(self, schema: Any, prefix: str, builder: Any, optional: bool, parent_default: Any) -> None:
        from smt.data import SchemaBuilder, Type

        for field in schema.fields:
            name = self._name(prefix, field.name)
            field_schema = field.schema
            field_optional = optional or field_schema.optional
            default = field_schema.default
            if default is None and parent_default is not None:
                default = parent_default.get(field)
            kind = field_schema.type
            if kind is Type.STRUCT:
                self._flat_fields(field_schema, name, builder, field_optional, default)
            elif kind is Type.MAP:
                raise DataError(
                    f"Flatten transformation does not support {kind} for record with schemas (for field {name})."
                )
            else:
                flat = SchemaBuilder.copy_of(field_schema)
                if field_optional and not field_schema.optional:
                    flat.optional()
                if default is not None and field_schema.default is None:
                    flat.default_value(default)
                builder.field(name, flat.build())

    def _flatten_struct(self, struct: Any, prefix: str, flat: Any) -> None:
        from smt.data import Type

        if struct is None:
            return
        for field in struct.schema.fields:
            name = self._name(prefix, field.name)
            if field.schema.type is Type.STRUCT:
                self._flatten_struct(struct.get(field), name, flat)
            else:
                flat.put(name, struct.get(field))


FlattenKey, FlattenValue = key_value_variants(Flatten, "Flatten", __name__)
