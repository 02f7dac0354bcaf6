"""HoistField: wrap the key or value in a single-field map or struct."""

from __future__ import annotations

from typing import Any

from smt.batch import RecordBatch
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance
from smt.record import Record
from smt.transform import ErrorSink
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._variant import PartTransform, key_value_variants, map_column


class HoistField(PartTransform):
    """Wrap the data in a struct (with a schema) or a map (schemaless) under the field ``field``.

    A schemaless tombstone becomes ``{field: null}``, as in Kafka; a tombstone with a schema
    passes through unchanged (Kafka would fail when the schema is required).
    """

    config_def = ConfigDef().define(
        "field",
        ConfigType.STRING,
        REQUIRED,
        None,
        Importance.MEDIUM,
        "Field name for the single field that will be created in the resulting Struct or Map.",
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.field = self.config["field"]
        self.schema_cache = SchemaCache()

    def apply_null(self, record: Record, schema: Any):
        if schema is None:
            return None, {self.field: None}
        return None if not schema.optional else self.apply_with_schema(record, schema, None)

    def apply_schemaless(self, record: Record, value: Any) -> Any:
        return {self.field: value}

    def apply_with_schema(self, record: Record, schema: Any, value: Any):
        from smt.data import SchemaBuilder, Struct

        new_schema = self.schema_cache.get(schema, lambda s: SchemaBuilder.struct().field(self.field, s).build())
        return new_schema, Struct(new_schema).put(self.field, value)

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        if not self.schemaless_batch(batch):
            return super().apply_batch(batch, errors)
        field = self.field
        return map_column(batch, errors, self.part.name, lambda value: {field: value})


HoistFieldKey, HoistFieldValue = key_value_variants(HoistField, "HoistField", __name__)
