"""ReplaceField: keep, drop and rename fields (nested ones with V2 paths)."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from smt.batch import RecordBatch
from smt.codegen import LoopSource, MapLoopPlan, compile_map_loop, finish_column, literal, run_map_loop
from smt.compiled import CompiledValue, NotCompilable
from smt.config import ConfigDef, ConfigType, Importance
from smt.record import Record
from smt.transform import ErrorSink
from smt.transforms._field_path import FIELD_SYNTAX_VERSION, parse_path, parse_paths, with_field_syntax
from smt.transforms._nested_replace import NestedReplacer
from smt.transforms._requirements import require_map, require_struct
from smt.transforms._schema_cache import SchemaCache
from smt.transforms._structs import REPLACE_NULL_WITH_DEFAULT, copy_basics, define_replace_null, field_value
from smt.transforms._variant import VALUE, PartTransform, key_value_variants

PURPOSE = "field replacement"
_REMOVED_IN_KAFKA_4 = "removed in Kafka 4.0, which ignores it; honoured here with its Kafka 3.x meaning"


def _rename_mappings(value: list[str]) -> None:
    for mapping in value:
        if len(mapping.split(":")) != 2:
            raise ValueError(f"Invalid rename mapping: {mapping}")


class ReplaceField(PartTransform):
    """Filter or rename fields: ``exclude`` wins over ``include``; ``renames`` maps ``old:new``.

    A tombstone (null key/value) passes through unchanged, as in Kafka. With
    ``field.syntax.version=V2`` the names are dotted paths: ``exclude=a.b`` drops ``b`` inside
    ``a``, ``include=a.b`` keeps only ``a.b`` of ``a``, ``renames=a.b:c`` renames it in place.
    """

    config_def = with_field_syntax(
        define_replace_null(
            ConfigDef()
            .define(
                "exclude",
                ConfigType.LIST,
                [],
                None,
                Importance.MEDIUM,
                "Fields to exclude. This takes precedence over the fields to include.",
            )
            .define(
                "include",
                ConfigType.LIST,
                [],
                None,
                Importance.MEDIUM,
                "Fields to include. If specified, only these fields will be used.",
            )
            .define(
                "renames",
                ConfigType.LIST,
                [],
                _rename_mappings,
                Importance.MEDIUM,
                "Field rename mappings, as old:new pairs separated by commas.",
            )
            # Kafka 2.7-3.9 accepted these; 4.0 removed them and ignores them, silently keeping
            # every field.  Honoured here with their old meaning, and reported as deprecated.
            .define_deprecated("blacklist", "exclude", _REMOVED_IN_KAFKA_4)
            .define_deprecated("whitelist", "include", _REMOVED_IN_KAFKA_4)
        )
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.exclude = frozenset(self.config["exclude"])
        self.include = frozenset(self.config["include"])
        self.renames = dict(m.split(":") for m in self.config["renames"])
        self.replace_null_with_default = self.config[REPLACE_NULL_WITH_DEFAULT]
        self.schema_cache = SchemaCache()
        self.nested = self._nested_replacer()
        self._batch_loop = self._exclude_loop()

    def _nested_replacer(self) -> NestedReplacer | None:
        """The nested rules when V2 paths reach below the top level, else None (top-level fast path)."""
        version, prefix = self.config[FIELD_SYNTAX_VERSION], self.context.prefix
        if version.upper() != "V2":
            return None
        exclude = parse_paths(self.config["exclude"], version, prefix + "exclude")
        include = parse_paths(self.config["include"], version, prefix + "include")
        renames = {parse_path(old, version, prefix + "renames").steps: new for old, new in self.renames.items()}
        if not any(p.nested for p in exclude + include) and all(len(s) == 1 for s in renames):
            self.exclude = frozenset(p.last for p in exclude)
            self.include = frozenset(p.last for p in include)
            self.renames = {steps[0]: new for steps, new in renames.items()}
            return None
        return NestedReplacer([p.steps for p in exclude], [p.steps for p in include], renames)

    def keeps(self, name: str) -> bool:
        return name not in self.exclude and (not self.include or name in self.include)

    def apply_schemaless(self, record: Record, value: Any) -> Any:
        value = require_map(value, PURPOSE)
        if self.nested is not None:
            return self.nested.map(value)
        renames, keeps = self.renames, self.keeps
        out = {name: item for name, item in value.items() if name not in renames and keeps(name)}
        # Renamed fields go in last, in the renames' order, as the compiled loop puts them: a rename
        # onto a field that stays wins, and of two renames to one name the last (rename-collisions).
        for old, new in renames.items():
            if old in value and keeps(old):
                out[new] = value[old]
        return out

    def apply_with_schema(self, record: Record, schema: Any, value: Any):
        from smt.data import Struct

        struct = require_struct(value, PURPOSE)
        if self.nested is not None:
            new_schema = self.schema_cache.get(struct.schema, self.nested.schema)
            return new_schema, self.nested.struct(struct, new_schema, self.replace_null_with_default)
        new_schema, sources = self.schema_cache.get(struct.schema, self._derive_schema)
        updated = Struct(new_schema)
        lookup = struct.schema.field
        for field, source in zip(new_schema.fields, sources):
            item = field_value(struct, source, self.replace_null_with_default)
            if item is not None and field.schema is lookup(source).schema:
                updated.put_valid(field, item)  # copied under the same schema: valid already
            else:
                updated.put(field, item)
        return new_schema, updated

    @classmethod
    def compiled_form(cls) -> str | None:
        """The $Value variant's compiled form (:class:`smt.compiled.CompiledStage`)."""
        return "top-level fields" if getattr(cls, "part", None) is VALUE else None

    def compile_value(self, value: CompiledValue, functions: Any) -> CompiledValue:
        """The value's fields kept and renamed in Spark SQL (the compiled path, :mod:`smt.compiled`):
        top-level names only."""
        if self.part.name != "value" or self.nested is not None:
            raise NotCompilable(f"{self.name} compiles as a Value transform of top-level fields")
        names = [self.renames.get(f.name, f.name) for f in value.schema.fields if self.keeps(f.name)]
        if len(set(names)) != len(names):
            raise NotCompilable(f"{self.name}: two fields take one name (Kafka picks one by hash order)")
        new_schema, sources = self.schema_cache.get(value.schema, self._derive_schema)
        columns = {field.name: value.columns[source] for field, source in zip(new_schema.fields, sources)}
        return CompiledValue(new_schema, columns)

    def _derive_schema(self, schema: Any) -> tuple[Any, tuple[str, ...]]:
        """The new schema, and for each of its fields the input field it comes from.

        The value is read from that field.  Kafka reads it through its reversed renames, a HashMap:
        with two renames to one name (``id:y,b:y``) it picks one by hash order, and fails on a
        record that lacks that one (see the rename-collisions deviation).
        """
        builder = copy_basics(schema)
        sources = []
        for field in schema.fields:
            if self.keeps(field.name):
                builder.field(self.renames.get(field.name, field.name), field.schema)
                sources.append(field.name)
        return builder.build(), tuple(sources)

    def _exclude_loop(self):
        """The compiled batch loop for exclude/renames."""
        source = self._loop_source()
        return compile_map_loop("replace_fields", source.body, source.namespace)

    def _loop_source(self, prefix: str = "") -> LoopSource:
        """Deletes, then moves (none can raise).

        Renamed keys move to the end; Kafka builds a HashMap, whose order is arbitrary anyway.
        """
        body = [f"if {literal(name)} in u: del u[{literal(name)}]" for name in sorted(self.exclude)]
        renames = list(self.renames.items())
        missing = prefix + "MISSING"
        # Every renamed field is taken out before any is put back: renames may swap names.
        body += [f"m{i} = u.pop({literal(old)}, {missing})" for i, (old, _new) in enumerate(renames)]
        body += [f"if m{i} is not {missing}: u[{literal(new)}] = m{i}" for i, (_old, new) in enumerate(renames)]
        return LoopSource(body, {missing: _MISSING})

    def map_loop_plan(self, batch: RecordBatch) -> MapLoopPlan | None:
        """This transform as a compiled map loop on ``batch`` (exclude/renames, no schemas), else None."""
        if self.include or self.nested is not None or not self.schemaless_batch(batch):
            return None
        return MapLoopPlan(self.part.name, self._loop_source, (), lambda value, row: self.apply_schemaless(None, value))

    def _include_reshaper(self):
        """Map -> map with includes: one plan per distinct key set (records of a topic share few)."""
        exclude, include, renames = self.exclude, self.include, self.renames
        plans: dict[tuple, tuple] = {}

        def plan_for(names: tuple) -> tuple:
            # Renamed fields last, as in apply_schemaless (a rename onto a field that stays wins).
            kept = [n for n in names if n not in exclude and n in include and n not in renames]
            kept += [old for old in renames if old in names and old not in exclude and old in include]
            plan = (tuple(renames.get(n, n) for n in kept), itemgetter(*kept) if len(kept) > 1 else None, kept)
            if len(plans) > 1024:
                plans.clear()
            plans[names] = plan
            return plan

        def reshape(value: dict) -> dict:
            names = tuple(value)
            plan = plans.get(names)
            if plan is None:
                plan = plan_for(names)
            new_names, getter, kept = plan
            if getter is not None:
                return dict(zip(new_names, getter(value)))
            return {new_names[0]: value[kept[0]]} if kept else {}

        return reshape

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        if not self.schemaless_batch(batch):
            return self.apply_to_part_columns(batch, errors)  # no method of it reads the record
        if self.nested is not None:
            return super().apply_batch(batch, errors)
        column = self.part.name
        fallback = lambda value, row: self.apply_schemaless(None, value)  # noqa: E731 - non-dict rows
        if not self.include:
            return run_map_loop(self._batch_loop, batch, column, (), errors, fallback)
        reshape = self._include_reshaper()
        out: list = []
        append = out.append
        failed: list[int] = []
        for row, value in enumerate(batch.column(column)):
            if value.__class__ is dict:
                append(reshape(value))
            elif value is None:
                append(None)
            else:
                try:
                    append(fallback(value, row))
                except Exception as exc:  # attributed to its row
                    errors.fail(row, exc)
                    failed.append(row)
                    append(None)
        return finish_column(batch, column, out, failed, owned=True)  # reshape builds new maps


_MISSING = object()

ReplaceFieldKey, ReplaceFieldValue = key_value_variants(ReplaceField, "ReplaceField", __name__)
