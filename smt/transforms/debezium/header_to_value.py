"""HeaderToValue: copy or move record headers into fields of the value struct."""

from __future__ import annotations

from typing import Any

from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, one_of
from smt.data import Schema, SchemaBuilder, Struct, copy_schema_basics, infer_schema
from smt.errors import ConfigError, DataError
from smt.record import Record
from smt.transform import Transform
from smt.transforms._requirements import require_struct, type_name
from smt.transforms._schema_cache import SchemaCache
from smt.transforms.debezium._list_checks import no_spaces_or_empty_elements
from smt.transforms.debezium.extract_new_record_state import DEBEZIUM_PACKAGE

_PURPOSE = "Header field insertion"


class HeaderToValue(Transform):
    """Add each header named in ``headers`` to the value as the field at the same place in ``fields``;
    ``operation=move`` also removes those headers, ``copy`` keeps them.

    The value must be a struct (Debezium has no schemaless path: a map fails). A field's schema
    is inferred from the header's value (this project keeps no header schemas), as Kafka's
    ``Values.inferSchema`` would; a null header value or an empty list cannot be added. A field
    the value already has keeps its schema and takes the header's value; of several headers with
    one name the last wins. Tombstones and records carrying none of the headers pass unchanged.
    Debezium's dotted names for nested fields are refused at configure time (not supported yet).
    """

    name = "HeaderToValue"
    aliases = (DEBEZIUM_PACKAGE + "HeaderToValue",)
    config_def = (
        ConfigDef()
        .define(
            "headers",
            ConfigType.LIST,
            REQUIRED,
            no_spaces_or_empty_elements,
            Importance.HIGH,
            "Header names in the record whose values are to be copied or moved to record value.",
        )
        .define(
            "fields",
            ConfigType.LIST,
            REQUIRED,
            no_spaces_or_empty_elements,
            Importance.HIGH,
            "Field names, in the same order as the header names listed in the headers configuration property.",
        )
        .define(
            "operation",
            ConfigType.STRING,
            REQUIRED,
            one_of("move", "copy", case_sensitive=False),
            Importance.HIGH,
            "Either move if the fields are to be moved to the value (removed from the headers), "
            "or copy if the fields are to be copied to the value (retained in the headers).",
        )
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"value", "headers"})

    def changed_fields(self) -> frozenset[str]:
        return frozenset({"value", "headers"})

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        fields, headers = self.config["fields"], self.config["headers"]
        if len(fields) != len(headers):
            raise ConfigError.for_key(
                self.context.prefix + "fields",
                "'fields' config must have the same number of elements as 'headers' config.",
                ",".join(fields),
            )
        for field in fields:
            if "." in field:
                raise ConfigError.for_key(
                    self.context.prefix + "fields", "nested fields are not supported by this HeaderToValue yet", field
                )
        self.field_of = {}
        for header, field in zip(headers, fields):
            self.field_of.setdefault(header, field)  # Debezium's headers.indexOf: the first mapping wins
        self.move = self.config["operation"].lower() == "move"
        self.schema_cache = SchemaCache(64)

    def apply(self, record: Record) -> Record:
        if record.value is None:
            return record
        value = require_struct(record.value, _PURPOSE)
        entries = [(self.field_of[name], name, v) for name, v in record.headers if name in self.field_of]
        if not entries:
            return record
        added = tuple((field, _header_schema(header, field, v)) for field, header, v in entries)
        schema = self.schema_cache.get((value.schema, added), self._derive)
        updated = Struct(schema)
        for field in value.schema.fields:
            current = value.get(field)  # as Debezium: a null field with a default is written as that default
            if current is not None:
                updated.put(field.name, current)
        for field, _, header_value in entries:
            updated.put(field, header_value)
        headers = record.headers
        if self.move:
            headers = tuple(h for h in headers if h[0] not in self.field_of)
        return record.replace(value=updated, value_schema=schema, headers=headers)

    @staticmethod
    def _derive(key: tuple[Schema, tuple[tuple[str, Schema], ...]]) -> Schema:
        value_schema, added = key
        # Debezium copies only name, version, doc and parameters: the new value schema is not optional.
        builder = copy_schema_basics(value_schema, SchemaBuilder.struct())
        for field in value_schema.fields:
            builder.field(field.name, field.schema)
        for name, field_schema in added:
            if value_schema.field(name) is None and name not in {f.name for f in builder.fields}:
                builder.field(name, field_schema)
        return builder.build()


def _header_schema(header: str, field: str, value: Any) -> Schema:
    schema = infer_schema(value)
    if schema is None:
        raise DataError(
            f"header '{header}' holds {type_name(value)}, whose schema cannot be inferred for value field '{field}'"
        )
    return schema


__all__ = ["HeaderToValue"]
