"""ReplaceField: keep, drop and rename top-level fields."""

from __future__ import annotations

from typing import Any

from smt.batch import RecordBatch
from smt.config import ConfigDef, ConfigType, Importance
from smt.errors import ConfigError
from smt.record import Record
from smt.transform import ErrorSink
from smt.transforms._requirements import require_map, require_struct
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._structs import REPLACE_NULL_WITH_DEFAULT, copy_basics, define_replace_null, field_value
from smt.transforms._variant import PartTransform, key_value_variants, map_column

PURPOSE = "field replacement"


def _rename_mappings(value: list[str]) -> None:
    for mapping in value:
        if len(mapping.split(":")) != 2:
            raise ValueError(f"Invalid rename mapping: {mapping}")


class ReplaceField(PartTransform):
    """Filter or rename fields: ``exclude`` wins over ``include``; ``renames`` maps ``old:new``.

    A tombstone (null key/value) passes through unchanged, as in Kafka.
    """

    config_def = define_replace_null(
        ConfigDef()
        .define("exclude", ConfigType.LIST, [], None, Importance.MEDIUM,
                "Fields to exclude. This takes precedence over the fields to include.")
        .define("include", ConfigType.LIST, [], None, Importance.MEDIUM,
                "Fields to include. If specified, only these fields will be used.")
        .define("renames", ConfigType.LIST, [], _rename_mappings, Importance.MEDIUM,
                "Field rename mappings, as old:new pairs separated by commas.")
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.exclude = frozenset(self.config["exclude"])
        self.include = frozenset(self.config["include"])
        self.renames = dict(m.split(":") for m in self.config["renames"])
        self.reverse_renames = {new: old for old, new in self.renames.items()}
        self.replace_null_with_default = self.config[REPLACE_NULL_WITH_DEFAULT]
        self.schema_cache = SchemaCache()

    def keeps(self, name: str) -> bool:
        return name not in self.exclude and (not self.include or name in self.include)

    def apply_schemaless(self, record: Record, value: Any) -> Any:
        value = require_map(value, PURPOSE)
        renames = self.renames
        return {renames.get(name, name): item for name, item in value.items() if self.keeps(name)}

    def apply_with_schema(self, record: Record, schema: Any, value: Any):
        from smt.data import Struct

        struct = require_struct(value, PURPOSE)
        new_schema = self.schema_cache.get(struct.schema, self._derive_schema)
        updated = Struct(new_schema)
        for field in new_schema.fields:
            original = self.reverse_renames.get(field.name, field.name)
            updated.put(field.name, field_value(struct, original, self.replace_null_with_default))
        return new_schema, updated

    def _derive_schema(self, schema: Any) -> Any:
        builder = copy_basics(schema)
        for field in schema.fields:
            if self.keeps(field.name):
                builder.field(self.renames.get(field.name, field.name), field.schema)
        return builder.build()

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        if not self.schemaless_batch(batch):
            return super().apply_batch(batch, errors)
        exclude, include, renames = self.exclude, self.include, self.renames
        # Decide once per distinct key set; records of a topic share a handful of shapes.
        plans: dict[tuple, list[tuple[str, str]]] = {}

        def plan_for(names: tuple) -> list[tuple[str, str]]:
            plan = [(n, renames.get(n, n)) for n in names
                    if n not in exclude and (not include or n in include)]
            if len(plans) > 1024:
                plans.clear()
            plans[names] = plan
            return plan

        def transform(value):
            if type(value) is not dict:
                if value is None:
                    return None
                require_map(value, PURPOSE)
            names = tuple(value)
            plan = plans.get(names)
            if plan is None:
                plan = plan_for(names)
            return {new: value[old] for old, new in plan}

        return map_column(batch, errors, self.part.name, transform)


ReplaceFieldKey, ReplaceFieldValue = key_value_variants(ReplaceField, "ReplaceField", __name__)
