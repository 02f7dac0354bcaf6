"""ValueToKey: replace the key with fields taken from the value."""

from __future__ import annotations

from typing import Any

from smt.batch import RecordBatch
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, non_empty_list
from smt.errors import DataError
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import ErrorSink, Transform
from smt.transforms._field_path import FIELD_SYNTAX_VERSION, FieldPath, parse_paths, with_field_syntax
from smt.transforms._requirements import require_map, require_struct
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._structs import REPLACE_NULL_WITH_DEFAULT, define_replace_null, field_value
from smt.transforms._variant import KAFKA_PACKAGE, derive_batch

PURPOSE = "copying fields from value to key"


class ValueToKey(Reconfigurable, Transform):
    """The key becomes a map (schemaless) or struct of the value's ``fields``.

    A missing schemaless field gives null; a missing field with a schema is a data error.
    A tombstone (null value) fails, as in Kafka: there is no value to derive the key from,
    and keeping the old key would send the delete to a key the re-keyed records never use.
    With ``field.syntax.version=V2`` a
    dotted path ``a.b`` puts the value's ``a.b`` at ``a.b`` in the key (nested maps or structs).
    """

    name = "ValueToKey"
    aliases = (KAFKA_PACKAGE + "ValueToKey", "valuetokey")
    config_def = with_field_syntax(
        define_replace_null(
            ConfigDef().define(
                "fields",
                ConfigType.LIST,
                REQUIRED,
                non_empty_list,
                Importance.HIGH,
                "Field names on the record value to extract as the record key.",
            )
        )
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"value"})

    def changed_fields(self) -> frozenset[str]:
        return frozenset({"key"})

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.paths = parse_paths(
            self.config["fields"], self.config[FIELD_SYNTAX_VERSION], self.context.prefix + "fields"
        )
        self.replace_null_with_default = self.config[REPLACE_NULL_WITH_DEFAULT]
        self.schema_cache = SchemaCache()

    def apply(self, record: Record) -> Record:
        if record.value_schema is None:
            return record.replace(key=self._key_from_map(record.value), key_schema=None)
        struct = require_struct(record.value, PURPOSE)
        key_schema = self.schema_cache.get(struct.schema, self._derive_schema)
        return record.replace(key=self._key_struct(struct, key_schema), key_schema=key_schema)

    def _key_struct(self, struct: Any, key_schema: Any) -> Any:
        from smt.data import Struct

        if not any(p.nested for p in self.paths):
            key = Struct(key_schema)
            for path in self.paths:
                key.put(path.last, field_value(struct, path.last, self.replace_null_with_default))
            return key
        values: dict = {}
        for path in self.paths:
            _put_nested(values, path, path.get_from_struct(struct, self.replace_null_with_default))
        return _struct_from_tree(key_schema, values)

    def _key_from_map(self, value: Any) -> dict:
        value = require_map(value, PURPOSE)
        key: dict = {}
        for path in self.paths:
            if path.nested:
                _put_nested(key, path, path.get_from_map(value))
            else:
                key[path.last] = value.get(path.last)
        return key

    def _derive_schema(self, schema: Any) -> Any:
        """The key schema: the paths' fields, nested as in the value (intermediate structs optional)."""
        tree: dict = {}
        for path in self.paths:
            field = path.field_from(schema)
            if field is None:
                raise DataError(f"Field does not exist: {path.text}")
            _put_nested(tree, path, field.schema)
        return _schema_from_tree(tree, optional=False)

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        schemas = batch.value_schema
        if schemas.count(None) != len(schemas):
            return super().apply_batch(batch, errors)
        values = batch.value
        make_key = self._key_from_map
        keys: list = []
        failed: list[int] = []
        for row, value in enumerate(values):
            try:
                keys.append(make_key(value))
            except Exception as exc:  # attributed to its row
                errors.fail(row, exc)
                failed.append(row)
                keys.append(None)
        key_schemas = batch.key_schema
        if key_schemas.count(None) == len(key_schemas):
            result = derive_batch(batch, key=keys)
        else:
            result = derive_batch(batch, key=keys, key_schema=[None] * len(keys))
        return result.without_rows(failed)


def _schema_from_tree(tree: dict, optional: bool) -> Any:
    from smt.data import SchemaBuilder

    builder = SchemaBuilder.struct()
    if optional:
        builder.optional()
    for name, node in tree.items():
        builder.field(name, _schema_from_tree(node, optional=True) if isinstance(node, dict) else node)
    return builder.build()


def _struct_from_tree(schema: Any, tree: dict) -> Any:
    from smt.data import Struct

    struct = Struct(schema)
    for name, node in tree.items():
        if isinstance(node, dict):
            node = _struct_from_tree(schema.field(name).schema, node)
        struct.put(name, node)
    return struct


def _put_nested(key: dict, path: FieldPath, value: Any) -> None:
    current = key
    for step in path.steps[:-1]:
        current = current.setdefault(step, {})
    current[path.last] = value
