"""MaskField: replace field values with a type's empty value, or with a configured replacement."""

from __future__ import annotations

import datetime as _dt
import decimal
from typing import Any, Callable

from smt.batch import RecordBatch
from smt.codegen import LoopSource, MapLoopPlan, compile_map_loop, literal, run_map_loop
from smt.compiled import PRIMITIVE_DDL, CompiledRecord, CompiledValue, NotCompilable
from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, non_empty_list
from smt.config import kafka_non_empty_string as non_empty_string
from smt.data.logical import EPOCH, EPOCH_DATE
from smt.errors import DataError
from smt.record import Record
from smt.transform import ErrorSink
from smt.transforms._compiled_objects import mask_fields
from smt.transforms._field_path import FIELD_SYNTAX_VERSION, parse_paths, with_field_syntax
from smt.transforms._requirements import require_map, require_struct, type_name
from smt.transforms._struct_paths import StructRewriter
from smt.transforms._structs import REPLACE_NULL_WITH_DEFAULT, define_replace_null
from smt.transforms._variant import VALUE, PartTransform, key_value_variants, map_column

PURPOSE = "mask fields"

#: The masked value of each type when no replacement is configured (Kafka's empty values).
_EMPTY: dict[type, Callable[[], Any]] = {
    bool: lambda: False,
    int: lambda: 0,
    float: lambda: 0.0,
    str: lambda: "",
    decimal.Decimal: lambda: decimal.Decimal(0),
    _dt.datetime: lambda: EPOCH,
    _dt.date: lambda: EPOCH_DATE,
    _dt.time: lambda: _dt.time(0),
    list: list,
    dict: dict,
}


#: The masked value of each primitive Connect type on the compiled path (its Spark type: PRIMITIVE_DDL).
_COMPILED_EMPTY = {
    "int8": 0,
    "int16": 0,
    "int32": 0,
    "int64": 0,
    "float32": 0.0,
    "float64": 0.0,
    "boolean": False,
    "string": "",
}


def _to_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        number = float(text)
        if not number.is_integer():
            raise
        return int(number)


#: How a replacement string becomes a value of each maskable type.
_REPLACEMENT_PARSERS: dict[type, Callable[[str], Any]] = {
    int: _to_int,
    float: float,
    str: str,
    decimal.Decimal: decimal.Decimal,
}


class MaskField(PartTransform):
    """Mask fields: numbers become 0, strings "", booleans false, lists/maps empty, dates the epoch.

    With ``replacement``, numeric and string fields take the replacement (parsed as a number for
    numeric fields); masking a boolean, date, list or map with a replacement is a data error.
    A schemaless field that is absent is set to null, as Kafka does. A tombstone passes
    through. With ``field.syntax.version=V2`` field names are paths into nested maps and structs.
    """

    config_def = with_field_syntax(
        define_replace_null(
            ConfigDef()
            .define(
                "fields",
                ConfigType.LIST,
                default=REQUIRED,
                validator=non_empty_list,
                importance=Importance.HIGH,
                doc="Names of fields to mask.",
            )
            .define(
                "replacement",
                ConfigType.STRING,
                None,
                non_empty_string,
                Importance.LOW,
                "Custom value replacement, applied to all 'fields' values (numeric or non-empty string values only).",
            )
        )
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.paths = parse_paths(
            self.config["fields"], self.config[FIELD_SYNTAX_VERSION], self.context.prefix + "fields"
        )
        self.replace_null_with_default = self.config[REPLACE_NULL_WITH_DEFAULT]
        self.rewriter = StructRewriter(
            [p.steps for p in self.paths],
            lambda steps, schema: schema,
            lambda steps, schema, value: self._mask_with_schema(schema, value),
            self.replace_null_with_default,
        )
        self.replacement: str | None = self.config["replacement"]
        self._masks: dict[type, Any] = {}
        self.mask = self._build_masker()
        self._batch_loop = None if any(p.nested for p in self.paths) else self._flat_loop()

    def _build_masker(self) -> Callable[[Any], Any]:
        """A function value -> masked value, with per-type results computed once."""
        masks = self._masks
        replacement = self.replacement
        mutable = (list, dict)

        def mask(value: Any) -> Any:
            if value is None:
                return None
            kind = type(value)
            try:
                found = masks[kind]
            except KeyError:
                found = masks[kind] = _mask_for(kind, replacement)
            if isinstance(found, DataError):
                raise DataError(str(found))
            return kind() if kind in mutable else found  # fresh list/dict: callers may mutate it

        return mask

    def apply_schemaless(self, record: Record, value: Any) -> Any:
        return self._mask_map(require_map(value, PURPOSE))

    def _flat_loop(self):
        """The compiled batch loop for top-level fields."""
        source = self._loop_source()
        return compile_map_loop("mask_fields", source.body, source.namespace)

    def _loop_source(self, prefix: str = "") -> LoopSource:
        """One unrolled step per top-level field.

        The masked value of a field whose type is immutable is one dict lookup
        away; a missing field or another type takes the general ``mask``.
        Every masked value is computed before the map changes, so a field that
        cannot be masked leaves the row as it was.
        """
        names = [literal(path.last) for path in self.paths]
        body = ["try:"]
        body += [f"    m{i} = {prefix}MASKS[value[{name}].__class__]" for i, name in enumerate(names)]
        body += ["except KeyError:"]
        body += [f"    m{i} = {prefix}mask(value.get({name}))" for i, name in enumerate(names)]
        body += [f"u[{name}] = m{i}" for i, name in enumerate(names)]
        # Immutable masked values by type; types whose masking fails keep failing per row, with context.
        masks_by_type = {kind: self.mask(sample) for kind, sample in _SAMPLES.items() if _safe(self.mask, sample)}
        return LoopSource(body, {prefix + "MASKS": masks_by_type, prefix + "mask": self.mask})

    def _mask_map(self, value: dict) -> dict:
        mask = self.mask
        updated = dict(value)
        for path in self.paths:
            if path.nested:

                def change(parent: dict, last=path.last) -> dict:
                    copy = dict(parent)
                    copy[last] = mask(parent.get(last))
                    return copy

                updated = path.update_map(updated, change)
            else:
                updated[path.last] = mask(value.get(path.last))
        return updated

    def apply_with_schema(self, record: Record, schema: Any, value: Any):
        struct = require_struct(value, PURPOSE)
        # Masking keeps every schema: the struct is rebuilt on its own schema.
        return schema, self.rewriter.value(struct, struct.schema)

    def _mask_with_schema(self, schema: Any, value: Any) -> Any:
        if value is None:
            return None
        if self.replacement is not None and schema.type.value in ("float32", "float64"):
            return _parse_replacement(float, self.replacement)
        return self.mask(value)

    @classmethod
    def compiled_form(cls) -> str | None:
        """The $Value variant's compiled form (:class:`smt.compiled.CompiledStage`)."""
        return "top-level primitive fields, no replacement" if getattr(cls, "part", None) is VALUE else None

    def compile_record(self, record: CompiledRecord, functions: Any) -> CompiledRecord:
        """The record with its value's fields masked, for the JVM streaming path (schemaless JSON objects,
        top-level fields: :mod:`smt.transforms._compiled_objects`)."""
        return mask_fields(record, self.part.name, self.paths, self.mask, functions)

    def compile_value(self, value: CompiledValue, functions: Any) -> CompiledValue:
        """The value masked in Spark SQL (the compiled path, :mod:`smt.compiled`): top-level primitive
        fields, no replacement.  ``functions`` is ``pyspark.sql.functions``."""
        if self.part.name != "value" or self.replacement is not None or any(p.nested for p in self.paths):
            raise NotCompilable(f"{self.name} compiles as a Value transform of top-level fields, no replacement")
        columns = dict(value.columns)
        for path in self.paths:
            field = value.schema.field(path.last)
            if field is None or field.schema.name is not None or field.schema.type.value not in _COMPILED_EMPTY:
                raise NotCompilable(f"{self.name}: field '{path.last}' is not a primitive field of the schema")
            kind = field.schema.type.value
            empty = functions.lit(_COMPILED_EMPTY[kind]).cast(PRIMITIVE_DDL[kind])
            column = columns[path.last]
            columns[path.last] = functions.when(column.isNull(), column).otherwise(empty)
        return CompiledValue(value.schema, columns)

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        if not self.schemaless_batch(batch):
            return self.apply_to_part_columns(batch, errors)  # no method of it reads the record
        mask_map = self._mask_map
        if any(p.nested for p in self.paths):

            def transform(value):
                return None if value is None else mask_map(require_map(value, PURPOSE))

            return map_column(batch, errors, self.part.name, transform)
        plan = self.map_loop_plan(batch)
        return run_map_loop(self._batch_loop, batch, plan.part, (), errors, plan.fallback)

    def map_loop_plan(self, batch: RecordBatch) -> MapLoopPlan | None:
        """This transform as a compiled map loop on ``batch`` (top-level fields, no schemas), else None."""
        if self._batch_loop is None or not self.schemaless_batch(batch):
            return None
        return MapLoopPlan(
            self.part.name, self._loop_source, (), lambda value, row: self._mask_map(require_map(value, PURPOSE))
        )


#: One value of each immutable type, to precompute its masked value for the batch path.
_SAMPLES = {type(None): None, bool: True, int: 1, float: 1.0, str: "x", decimal.Decimal: decimal.Decimal(1)}


def _safe(mask: Callable[[Any], Any], sample: Any) -> bool:
    """True when masking ``sample`` succeeds (types that fail keep failing per row, with context)."""
    try:
        mask(sample)
    except DataError:
        return False
    return True


def _mask_for(kind: type, replacement: str | None) -> Any:
    """The masked value for values of ``kind``, or the DataError masking it raises."""
    if replacement is None:
        empty = _empty_for(kind)
        if empty is None:
            return DataError(f"Cannot mask value of type: {kind.__name__}")
        return empty()
    parser = next((p for t, p in _REPLACEMENT_PARSERS.items() if kind is t), None)
    if parser is None or kind is bool:
        return DataError(f"Cannot mask value of type {kind.__name__} with custom replacement.")
    try:
        return _parse_replacement(parser, replacement)
    except DataError as exc:
        return exc


def _empty_for(kind: type) -> Callable[[], Any] | None:
    for known, empty in _EMPTY.items():
        if issubclass(kind, known):
            return empty
    return None


def _parse_replacement(parser: Callable[[str], Any], replacement: str) -> Any:
    try:
        return parser(replacement)
    except (ValueError, ArithmeticError):
        raise DataError(f"Unable to convert {replacement} ({type_name(replacement)}) to number") from None


MaskFieldKey, MaskFieldValue = key_value_variants(MaskField, "MaskField", __name__)
