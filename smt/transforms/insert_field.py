"""InsertField: add record metadata (topic, partition, offset, timestamp) or a static value as fields."""

from __future__ import annotations

from typing import Any

from smt.batch import RecordBatch
from smt.codegen import LoopSource, MapLoopPlan, compile_map_loop, literal, run_map_loop
from smt.compiled import PRIMITIVE_DDL, CompiledRecord, CompiledValue, NotCompilable
from smt.config import ConfigDef, ConfigType, Importance
from smt.data import Schema
from smt.data.logical import Timestamp, millis_to_datetime
from smt.errors import ConfigError, DataError
from smt.record import Record
from smt.transform import ErrorSink
from smt.transforms._compiled_objects import insert_fields
from smt.transforms._field_path import FIELD_SYNTAX_VERSION, FieldPath, parse_path, with_field_syntax
from smt.transforms._requirements import require_map, require_struct
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._struct_paths import StructRewriter
from smt.transforms._structs import REPLACE_NULL_WITH_DEFAULT, define_replace_null, optional_schema
from smt.transforms._variant import VALUE, PartTransform, key_value_variants

PURPOSE = "field insertion"
_METADATA = ("topic", "partition", "offset", "timestamp")
_FIELD_SCHEMAS = {
    "topic": Schema.STRING_SCHEMA,
    "partition": Schema.INT32_SCHEMA,
    "offset": Schema.INT64_SCHEMA,
    "timestamp": Timestamp.SCHEMA,
    "static": Schema.STRING_SCHEMA,
}


class _Insertion:
    """One field to insert: where (path), whether optional (``?``, the default) or required (``!``)."""

    __slots__ = ("path", "optional")

    def __init__(self, spec: str, version: str, key: str) -> None:
        self.optional = not spec.endswith("!")
        name = spec[:-1] if spec.endswith(("?", "!")) else spec
        self.path: FieldPath = parse_path(name, version, key)


class InsertField(PartTransform):
    """Insert the record's topic, partition, offset and timestamp, or a static value, as fields.

    A field name ending in ``!`` makes the field required in the derived schema, ``?`` (the
    default) optional. The partition, offset and timestamp are inserted only when the record
    has them. A tombstone (null key/value) passes through unchanged. With
    ``field.syntax.version=V2`` field names are paths: fields are inserted into nested maps or structs.
    """

    config_def = with_field_syntax(
        define_replace_null(
            ConfigDef()
            .define(
                "topic.field",
                ConfigType.STRING,
                None,
                None,
                Importance.MEDIUM,
                "Field name for Kafka topic. Suffix with ! to make this a required field, or ? to keep it optional (the default).",
            )
            .define(
                "partition.field",
                ConfigType.STRING,
                None,
                None,
                Importance.MEDIUM,
                "Field name for Kafka partition. Suffix with ! or ? as for topic.field.",
            )
            .define(
                "offset.field",
                ConfigType.STRING,
                None,
                None,
                Importance.MEDIUM,
                "Field name for Kafka offset (only records that have one). Suffix with ! or ?.",
            )
            .define(
                "timestamp.field",
                ConfigType.STRING,
                None,
                None,
                Importance.MEDIUM,
                "Field name for record timestamp. Suffix with ! or ?.",
            )
            .define(
                "static.field",
                ConfigType.STRING,
                None,
                None,
                Importance.MEDIUM,
                "Field name for static data field. Suffix with ! or ?.",
            )
            .define(
                "static.value",
                ConfigType.STRING,
                None,
                None,
                Importance.MEDIUM,
                "Static field value, if field name configured.",
            )
        )
    )

    def input_fields(self) -> frozenset[str]:
        metadata = {
            "topic.field": "topic",
            "partition.field": "partition",
            "offset.field": "offset",
            "timestamp.field": "timestamp",
        }
        read = {field for key, field in metadata.items() if self.config.get(key)}
        return super().input_fields() | read

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        version = self.config[FIELD_SYNTAX_VERSION]
        prefix = self.context.prefix
        self.insertions: dict[str, _Insertion] = {}
        for kind in (*_METADATA, "static"):
            spec = self.config[f"{kind}.field"]
            if spec:
                self.insertions[kind] = _Insertion(spec, version, prefix + f"{kind}.field")
        if not self.insertions:
            fields = ", ".join(f"{prefix}{kind}.field" for kind in (*_METADATA, "static"))
            raise ConfigError.for_key(prefix.rstrip("."), f"No field insertion configured: set one of {fields}")
        self.static_value = self.config["static.value"]
        if "static" in self.insertions and self.static_value is None:
            raise ConfigError.for_key(
                prefix + "static.value",
                f"No value specified for static field: {self.config['static.field']}",
            )
        self.replace_null_with_default = self.config[REPLACE_NULL_WITH_DEFAULT]
        self.schema_cache = SchemaCache()
        additions: dict[tuple[str, ...], list[tuple[str, Any]]] = {}
        for kind, insertion in self.insertions.items():
            field_schema = _FIELD_SCHEMAS[kind]
            if insertion.optional:
                field_schema = optional_schema(field_schema)
            additions.setdefault(insertion.path.steps[:-1], []).append((insertion.path.last, field_schema))
        self.rewriter = StructRewriter((), None, None, self.replace_null_with_default, additions=additions)
        nested = any(i.path.nested for i in self.insertions.values())
        self._batch_loop = None if nested else self._flat_loop()

    # --- per record ---------------------------------------------------------------

    def _values_for(self, record: Record) -> list[tuple[_Insertion, Any, bool]]:
        """(insertion, value, present) for each configured field."""
        found = {
            "topic": (record.topic, record.topic is not None),
            "partition": (record.partition, record.partition is not None),
            "offset": (record.offset, record.offset is not None),
            "timestamp": (record.timestamp, record.timestamp is not None),
            "static": (self.static_value, True),
        }
        return [(ins, *found[kind]) for kind, ins in self.insertions.items()]

    def apply_schemaless(self, record: Record, value: Any) -> Any:
        require_map(value, PURPOSE)
        updated = dict(value)
        for insertion, field_value, present in self._values_for(record):
            if present:
                updated = _put(updated, insertion.path, field_value)
        return updated

    def apply_with_schema(self, record: Record, schema: Any, value: Any):
        struct = require_struct(value, PURPOSE)
        new_schema = self.schema_cache.get(struct.schema, self.rewriter.schema)
        added: dict[tuple[str, ...], list[tuple[str, Any]]] = {}
        for insertion, item, present in self._values_for(record):
            if not present:
                continue  # left null, as Kafka leaves it: a required field fails when it is written
            if insertion is self.insertions.get("timestamp") and item is not None:
                item = millis_to_datetime(item)
            added.setdefault(insertion.path.steps[:-1], []).append((insertion.path.last, item))
        return new_schema, self.rewriter.value(struct, new_schema, added)

    # --- compiled (Spark SQL) ---------------------------------------------------------

    @classmethod
    def compiled_form(cls) -> str | None:
        """The $Value variant's compiled form (:class:`smt.compiled.CompiledStage`)."""
        return "a top-level static field" if getattr(cls, "part", None) is VALUE else None

    def compile_record(self, record: CompiledRecord, functions: Any) -> CompiledRecord:
        """The record with its value's fields inserted, for the JVM streaming path (schemaless JSON objects,
        top-level fields: :mod:`smt.transforms._compiled_objects`)."""
        return insert_fields(record, self.part.name, self.insertions, self.static_value, functions)

    def compile_value(self, value: CompiledValue, functions: Any) -> CompiledValue:
        """The value with its static field, in Spark SQL (the compiled path, :mod:`smt.compiled`): a
        top-level ``static.field`` only (the record's topic, partition, offset and timestamp are not
        among a compiled value's columns).  A field left null that has a default takes it, as in Python
        with ``replace.null.with.default``."""
        if self.part.name != "value" or set(self.insertions) != {"static"} or self.insertions["static"].path.nested:
            raise NotCompilable(f"{self.name} compiles as a Value transform inserting a top-level static field only")
        try:
            new_schema = self.schema_cache.get(value.schema, self.rewriter.schema)
        except DataError as exc:  # a name taken twice: every record fails in Python, which reports it
            raise NotCompilable(f"{self.name}: {exc}") from None
        columns = {name: self._or_default(value, name, column, functions) for name, column in value.columns.items()}
        columns[self.insertions["static"].path.last] = functions.lit(self.static_value)
        return CompiledValue(new_schema, columns)

    def _or_default(self, value: CompiledValue, name: str, column: Any, functions: Any) -> Any:
        """``column``, or where it is null the default of the field ``name`` (when the transform replaces
        nulls with defaults and the field has one)."""
        field_schema = value.schema.field(name).schema
        if not self.replace_null_with_default or field_schema.default is None:
            return column
        ddl = PRIMITIVE_DDL.get(field_schema.type.value) if field_schema.name is None else None
        if ddl is None:
            raise NotCompilable(f"{self.name}: field '{name}' has a default that is not a primitive value")
        return functions.coalesce(column, functions.lit(field_schema.default).cast(ddl))

    # --- per batch ------------------------------------------------------------------

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        plan = self.map_loop_plan(batch)
        if plan is None:
            return super().apply_batch(batch, errors)
        return run_map_loop(self._batch_loop, batch, plan.part, plan.columns, errors, plan.fallback)

    def map_loop_plan(self, batch: RecordBatch) -> MapLoopPlan | None:
        """This transform as a compiled map loop on ``batch`` (top-level fields, no schemas), else None."""
        if self._batch_loop is None or not self.schemaless_batch(batch):
            return None

        def fallback(value: Any, row: int) -> Any:  # a non-dict value: the per-record path raises
            return self.apply_schemaless(batch.record(row), value)

        metadata = [kind for kind in self.insertions if kind != "static"]
        return MapLoopPlan(self.part.name, self._loop_source, [batch.column(kind) for kind in metadata], fallback)

    def _loop_source(self, prefix: str = "") -> LoopSource:
        """One unrolled assignment per inserted field (none can raise)."""
        body = []
        for kind, insertion in self.insertions.items():
            name = literal(insertion.path.last)
            if kind == "static":
                body.append(f"u[{name}] = {prefix}STATIC")
            else:
                body.append(f"if {prefix}{kind} is not None: u[{name}] = {prefix}{kind}")
        metadata = [prefix + kind for kind in self.insertions if kind != "static"]
        return LoopSource(body, {prefix + "STATIC": self.static_value}, metadata)

    def _flat_loop(self):
        """The compiled batch loop."""
        source = self._loop_source()
        return compile_map_loop("insert_fields", source.body, source.namespace, source.columns)


def _put(value: dict, path: FieldPath, field_value: Any) -> dict:
    if not path.nested:
        value[path.last] = field_value
        return value

    def insert(parent: dict) -> dict:
        copy = dict(parent)
        copy[path.last] = field_value
        return copy

    return path.update_map(value, insert)


InsertFieldKey, InsertFieldValue = key_value_variants(InsertField, "InsertField", __name__)
