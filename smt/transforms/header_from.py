"""HeaderFrom: copy or move fields of the key or value into headers."""

from __future__ import annotations

from typing import Any

from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, non_empty_list, one_of
from smt.errors import ConfigError, DataError
from smt.record import Record
from smt.transforms._field_path import FIELD_SYNTAX_VERSION, parse_paths, with_field_syntax
from smt.transforms._nested_replace import NestedReplacer
from smt.transforms._requirements import require_map, require_struct
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._structs import REPLACE_NULL_WITH_DEFAULT, copy_basics, define_replace_null, field_value
from smt.transforms._variant import PartTransform, key_value_variants


class HeaderFrom(PartTransform):
    """Append a header per field in ``fields`` (named by ``headers``, same order); ``operation=move``
    also removes the fields, ``copy`` keeps them.

    A tombstone passes through without headers added. With ``field.syntax.version=V2`` fields
    are dotted paths into nested maps and structs (``move`` removes the nested field).
    """

    config_def = with_field_syntax(
        define_replace_null(
            ConfigDef()
            .define(
                "fields",
                ConfigType.LIST,
                REQUIRED,
                non_empty_list,
                Importance.HIGH,
                "Field names in the record whose values are to be copied or moved to headers.",
            )
            .define(
                "headers",
                ConfigType.LIST,
                REQUIRED,
                non_empty_list,
                Importance.HIGH,
                "Header names, in the same order as the field names listed in the fields configuration property.",
            )
            .define(
                "operation",
                ConfigType.STRING,
                REQUIRED,
                one_of("move", "copy"),
                Importance.HIGH,
                "Either move if the fields are to be moved to the headers (removed from the key/value), "
                "or copy if the fields are to be copied to the headers (retained in the key/value).",
            )
        )
    )

    def changed_fields(self) -> frozenset[str]:
        return super().changed_fields() | {"headers"}

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        fields, headers = self.config["fields"], self.config["headers"]
        if len(fields) != len(headers):
            raise ConfigError("'fields' config must have the same number of elements as 'headers' config.")
        self.paths = parse_paths(fields, self.config[FIELD_SYNTAX_VERSION], self.context.prefix + "fields")
        self.header_names = headers
        self.move = self.config["operation"] == "move"
        self.purpose = f"header {self.config['operation']}"
        self.moved = frozenset(p.last for p in self.paths if not p.nested)
        self.replace_null_with_default = self.config[REPLACE_NULL_WITH_DEFAULT]
        self.schema_cache = SchemaCache()
        # Moving nested fields removes them where they sit, with ReplaceField's exclude rules.
        nested = [p.steps for p in self.paths if p.nested]
        self.nested_remover = NestedReplacer(nested + [(name,) for name in self.moved], [], {}) if nested else None

    def apply(self, record: Record) -> Record:
        value, schema = self.part.value(record), self.part.schema(record)
        if value is None:
            return record
        if schema is None:
            value = require_map(value, self.purpose)
            added = tuple((h, p.get_from_map(value)) for p, h in zip(self.paths, self.header_names))
            if self.move:
                value = (
                    self.nested_remover.map(value)
                    if self.nested_remover
                    else {k: v for k, v in value.items() if k not in self.moved}
                )
        else:
            struct = require_struct(value, self.purpose)
            self._require_fields(struct)
            rnd = self.replace_null_with_default
            added = tuple((h, p.get_from_struct(struct, rnd)) for p, h in zip(self.paths, self.header_names))
            if self.move:
                schema, value = self._without_moved(struct)
        record = self.part.new_record(record, schema, value)
        return record.replace(headers=record.headers + added)

    def _require_fields(self, struct: Any) -> None:
        """Kafka fails a record whose schema lacks a named field (a NullPointerException there)."""
        for path in self.paths:
            current = struct.schema
            for step in path.steps:
                field = current.field(step) if current.type.value == "struct" else None
                if field is None:
                    raise DataError(
                        f"{'.'.join(path.steps)} is not a field of the {self.part.name} schema, "
                        f"so it cannot go to a header"
                    )
                current = field.schema

    def _without_moved(self, struct: Any) -> tuple[Any, Any]:
        from smt.data import Struct

        if self.nested_remover is not None:
            schema = self.schema_cache.get(struct.schema, self.nested_remover.schema)
            return schema, self.nested_remover.struct(struct, schema, self.replace_null_with_default)
        schema = self.schema_cache.get(struct.schema, self._derive_schema)
        updated = Struct(schema)
        for field in schema.fields:
            updated.put(field.name, field_value(struct, field.name, self.replace_null_with_default))
        return schema, updated

    def _derive_schema(self, schema: Any) -> Any:
        builder = copy_basics(schema)
        for field in schema.fields:
            if field.name not in self.moved:
                builder.field(field.name, field.schema)
        return builder.build()


HeaderFromKey, HeaderFromValue = key_value_variants(HeaderFrom, "HeaderFrom", __name__)
