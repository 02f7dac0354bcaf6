"""TimestampConverter: convert a timestamp between string, unix, Date, Time and Timestamp."""

from __future__ import annotations

from typing import Any

from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, one_of
from smt.errors import ConfigError
from smt.record import Record
from smt.timeformat import DateFormatError, compile_pattern
from smt.transforms import _timestamps as ts
from smt.transforms._field_path import FIELD_SYNTAX_VERSION, parse_path, with_field_syntax
from smt.transforms._requirements import require_map, require_struct_or_none
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._struct_paths import StructRewriter
from smt.transforms._structs import REPLACE_NULL_WITH_DEFAULT, define_replace_null
from smt.transforms._variant import PartTransform, key_value_variants

PURPOSE = "converting timestamp formats"


class TimestampConverter(PartTransform):
    """Convert the whole key/value, or its field ``field``, to ``target.type``.

    The source type comes from the schema, or schemaless from the value (int = unix, str = string
    parsed with ``format``, date/time/datetime). ``format`` is a Java SimpleDateFormat pattern in
    UTC; ``unix.precision`` sets the unit of unix numbers. Null values stay null; a tombstone
    passes through (with the target type's optional schema when it has a schema).
    """

    config_def = with_field_syntax(
        define_replace_null(
            ConfigDef()
            .define(
                "field",
                ConfigType.STRING,
                "",
                None,
                Importance.HIGH,
                "The field containing the timestamp, or empty if the entire value is a timestamp",
            )
            .define(
                "target.type",
                ConfigType.STRING,
                REQUIRED,
                one_of(*ts.TYPES),
                Importance.HIGH,
                "The desired timestamp representation: string, unix, Date, Time, or Timestamp",
            )
            .define(
                "format",
                ConfigType.STRING,
                "",
                None,
                Importance.MEDIUM,
                "A SimpleDateFormat-compatible format for the timestamp. Used to generate the output "
                "when type=string or used to parse the input if the input is a string.",
            )
            .define(
                "unix.precision",
                ConfigType.STRING,
                "milliseconds",
                one_of("nanoseconds", "microseconds", "milliseconds", "seconds"),
                Importance.LOW,
                "The desired Unix precision for the timestamp: seconds, milliseconds, microseconds, "
                "or nanoseconds. Used to generate the output when type=unix or used to parse the "
                "input if the input is a Long.",
            )
        )
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        prefix = self.context.prefix
        self.target = self.config["target.type"]
        pattern = self.config["format"]
        if self.target == "string" and not pattern.strip():
            raise ConfigError.for_key(
                prefix + "format",
                "TimestampConverter requires format option to be specified when using string timestamps",
            )
        try:
            self.date_format = compile_pattern(pattern) if pattern.strip() else None
        except DateFormatError as exc:
            raise ConfigError.for_key(
                prefix + "format",
                f"TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: {pattern}",
                pattern,
            ) from exc
        self.precision = self.config["unix.precision"]
        field = self.config["field"]
        self.path = parse_path(field, self.config[FIELD_SYNTAX_VERSION], prefix + "field") if field else None
        self.replace_null_with_default = self.config[REPLACE_NULL_WITH_DEFAULT]
        self.schema_cache = SchemaCache()
        self.rewriter = StructRewriter(
            [self.path.steps] if self.path else [],
            lambda steps, schema: ts.schema_for(self.target, schema.optional),
            lambda steps, schema, value: self.convert(value, ts.type_from_schema(schema)),
            self.replace_null_with_default,
            keep_optional=True,
        )

    def convert(self, value: Any, source: str | None = None) -> Any:
        if value is None:
            return None
        kind = source or ts.infer_type(value)
        millis = ts.to_millis(kind, value, self.date_format, self.precision)
        return ts.from_millis(self.target, millis, self.date_format, self.precision)

    def apply_null(self, record: Record, schema: Any):
        if schema is None:
            return None
        if self.path is None:
            ts.type_from_schema(schema)  # as Kafka: a null under a schema no timestamp has fails
            return ts.schema_for(self.target, schema.optional), None
        return self.schema_cache.get(schema, self.rewriter.schema), None

    def apply_schemaless(self, record: Record, value: Any) -> Any:
        if self.path is None:
            return self.convert(value)
        value = require_map(value, PURPOSE)
        path, convert = self.path, self.convert

        def change(parent: dict) -> dict:
            copy = dict(parent)
            copy[path.last] = convert(parent.get(path.last))
            return copy

        return path.update_map(value, change)

    def apply_with_schema(self, record: Record, schema: Any, value: Any):
        if self.path is None:
            return ts.schema_for(self.target, schema.optional), self.convert(value, ts.type_from_schema(schema))
        struct = require_struct_or_none(value, PURPOSE)
        new_schema = self.schema_cache.get(schema, self.rewriter.schema)
        return new_schema, self.rewriter.value(struct, new_schema)


TimestampConverterKey, TimestampConverterValue = key_value_variants(TimestampConverter, "TimestampConverter", __name__)
