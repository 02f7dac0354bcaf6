"""SetSchemaMetadata: set the name and/or version of the key or value schema."""

from __future__ import annotations

from typing import Any

from smt.config import ConfigDef, ConfigType, Importance
from smt.errors import ConfigError
from smt.record import Record
from smt.transforms._requirements import require_schema
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._structs import REPLACE_NULL_WITH_DEFAULT, define_replace_null, field_value
from smt.transforms._variant import PartTransform, key_value_variants

PURPOSE = "updating schema metadata"


class SetSchemaMetadata(PartTransform):
    """Set ``schema.name`` and/or ``schema.version`` on the schema; a struct is rebuilt on the new schema.

    A schemaless part is a data error (``Schema required``), except a schemaless tombstone,
    which passes through.
    """

    config_def = define_replace_null(
        ConfigDef()
        .define("schema.name", ConfigType.STRING, None, None, Importance.HIGH, "Schema name to set.")
        .define("schema.version", ConfigType.INT, None, None, Importance.HIGH, "Schema version to set.")
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.schema_name = self.config["schema.name"]
        self.schema_version = self.config["schema.version"]
        if self.schema_name is None and self.schema_version is None:
            raise ConfigError("Neither schema name nor version configured")
        self.replace_null_with_default = self.config[REPLACE_NULL_WITH_DEFAULT]
        self.schema_cache = SchemaCache()

    def apply(self, record: Record) -> Record:
        value, schema = self.part.value(record), self.part.schema(record)
        if value is None and schema is None:
            return record
        require_schema(schema, PURPOSE)
        updated_schema = self.schema_cache.get(schema, self._derive_schema)
        return self.part.new_record(record, updated_schema, self._rebuild(value, updated_schema))

    def _derive_schema(self, schema: Any) -> Any:
        from smt.data import Schema, Type

        is_map = schema.type is Type.MAP
        return Schema(
            schema.type,
            schema.optional,
            schema.default,
            self.schema_name if self.schema_name is not None else schema.name,
            self.schema_version if self.schema_version is not None else schema.version,
            schema.doc,
            dict(schema.parameters),
            schema.fields if schema.type is Type.STRUCT else None,
            schema.key_schema if is_map else None,
            schema.value_schema if is_map or schema.type is Type.ARRAY else None,
        )

    def _rebuild(self, value: Any, schema: Any) -> Any:
        """A struct re-created on the updated schema (Kafka's ``updateSchemaIn``); other values as they are."""
        from smt.data import Struct

        if not isinstance(value, Struct):
            return value
        updated = Struct(schema)
        for field in value.schema.fields:
            updated.put(field.name, field_value(value, field, self.replace_null_with_default))
        return updated


SetSchemaMetadataKey, SetSchemaMetadataValue = key_value_variants(SetSchemaMetadata, "SetSchemaMetadata", __name__)
