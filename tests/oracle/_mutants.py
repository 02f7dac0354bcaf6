"""Planted bugs: one-line changes to our transforms, predicates, chain and converters.

Each :class:`Mutant` names a function or method (``module:Qualified.name``), a
piece of its source and what to put instead: a plausible slip, one line.
:func:`planted` recompiles the function from its changed source in its own
module's globals and puts it in place of the original for the duration of a
``with`` block (a method that calls ``super()`` gets its class cell back).
The mutant test (tests/oracle/test_mutants.py) runs the oracle's cases for
``plugins`` against each mutant and requires the oracle to report it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import textwrap
from typing import Any, Iterator

__all__ = ["MUTANTS", "Mutant", "planted"]


@dataclasses.dataclass(frozen=True)
class Mutant:
    name: str
    target: str
    old: str
    new: str
    #: The oracle case families that reach the changed code (plugin names as the tally shows them).
    plugins: tuple[str, ...]


def _resolve(target: str) -> tuple[Any, str, Any]:
    """(owner, attribute name, function) for ``module:Qualified.name``."""
    module_name, qualified = target.split(":")
    owner: Any = importlib.import_module(module_name)
    *path, name = qualified.split(".")
    for step in path:
        owner = getattr(owner, step)
    return owner, name, inspect.unwrap(owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name))


@contextlib.contextmanager
def planted(mutant: Mutant) -> Iterator[None]:
    """``mutant``'s change in place while the block runs."""
    owner, name, function = _resolve(mutant.target)
    raw = owner.__dict__[name] if isinstance(owner, type) else function
    code = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else function
    source = textwrap.dedent(inspect.getsource(code))
    if source.count(mutant.old) != 1:
        raise AssertionError(
            f"{mutant.name}: {mutant.old!r} occurs {source.count(mutant.old)} times in {mutant.target}"
        )
    changed = source.replace(mutant.old, mutant.new)
    # Compiled inside a function that has a __class__ variable, so that super() works in methods.
    factory = "def __mutant_factory__(__class__):\n" + textwrap.indent(changed, "    ") + f"    return {name}\n"
    namespace: dict[str, Any] = {}
    module = inspect.getmodule(code)
    exec(compile(factory, f"<mutant {mutant.name}>", "exec"), module.__dict__, namespace)
    replacement = namespace["__mutant_factory__"](owner if isinstance(owner, type) else None)
    if isinstance(raw, staticmethod) and not isinstance(replacement, staticmethod):
        replacement = staticmethod(replacement)
    setattr(owner, name, replacement)
    try:
        yield
    finally:
        setattr(owner, name, raw)


_T = "smt.transforms."

MUTANTS = [
    Mutant(
        "flatten-drops-its-delimiter",
        _T + "flatten:Flatten._name",
        "prefix + self.delimiter + name",
        "prefix + name",
        ("Flatten$Value", "Flatten$Key"),
    ),
    Mutant(
        "flatten-off-by-one-after-the-delimiter",
        _T + "flatten:Flatten._name",
        "prefix + self.delimiter + name",
        "prefix + self.delimiter + name[1:]",
        ("Flatten$Value", "Flatten$Key"),
    ),
    Mutant(
        "mask-field-takes-another-types-empty-value",
        _T + "mask_field:_empty_for",
        "issubclass(kind, known)",
        "issubclass(known, kind)",
        ("MaskField$Value", "MaskField$Key"),
    ),
    Mutant(
        "mask-field-parses-an-integer-replacement-as-float",
        _T + "mask_field:_mask_for",
        "parser = next((p for t, p in _REPLACEMENT_PARSERS.items() if kind is t), None)",
        "parser = float if kind is int else next((p for t, p in _REPLACEMENT_PARSERS.items() if kind is t), None)",
        ("MaskField$Value", "MaskField$Key"),
    ),
    Mutant(
        "cast-rounds-instead-of-truncating",
        _T + "_casting:_float_to_int",
        "else int(value)",
        "else round(value)",
        ("Cast$Value", "Cast$Key"),
    ),
    Mutant(
        "json-converter-drops-optional-when-reading",
        "converters.json._schema_json:from_json_schema",
        'if node.get("optional") is True:',
        'if node.get("optional") == "true":',
        ("JsonConverter",),
    ),
    Mutant(
        "header-from-move-acts-as-copy",
        _T + "header_from:HeaderFrom.configure",
        'self.move = self.config["operation"] == "move"',
        'self.move = self.config["operation"] == "Move"',
        ("HeaderFrom$Value", "HeaderFrom$Key"),
    ),
    Mutant(
        "simple-header-converter-reads-1.50-as-a-double",
        "smt.data._string_parser:_parse_number",
        "return Schema.FLOAT32_SCHEMA, as_float",
        "return Schema.FLOAT64_SCHEMA, as_float",
        ("SimpleHeaderConverter",),
    ),
    Mutant(
        "replace-field-blacklist-acts-as-include",
        "smt.config:ConfigDef._translate_deprecated",
        "translated.setdefault(old.replacement, props[old.name])",
        'translated.setdefault({"exclude": "include"}.get(old.replacement, old.replacement), props[old.name])',
        ("ReplaceField$Value", "ReplaceField$Key"),
    ),
    Mutant(
        "regex-router-routes-a-partial-match",
        _T + "regex_router:RegexRouter.route",
        "if self.regex.fullmatch(topic)",
        "if self.regex.search(topic)",
        ("RegexRouter",),
    ),
    Mutant(
        "negate-is-ignored",
        "smt.chain_stage:ChainStage.mask",
        "return [not t for t in tested]",
        "return [bool(t) for t in tested]",
        ("RecordIsTombstone", "HasHeaderKey"),
    ),
    Mutant(
        "has-header-key-matches-a-prefix",
        "smt.predicates.has_header_key:_matches_in_arrow",
        "pc.equal(keys, wanted)",
        "pc.starts_with(keys, wanted[:1])",
        ("HasHeaderKey",),
    ),
    Mutant(
        "hoist-field-drops-a-schemaless-tombstone",
        _T + "hoist_field:HoistField.apply_null",
        "return None, {self.field: None}",
        "return None, None",
        ("HoistField$Value", "HoistField$Key"),
    ),
    Mutant(
        "timestamp-router-swaps-its-placeholders",
        _T + "timestamp_router:_router",
        'topic_format.replace("${topic}", topic).replace("${timestamp}", stamp)',
        'topic_format.replace("${topic}", stamp).replace("${timestamp}", topic)',
        ("TimestampRouter",),
    ),
    Mutant(
        "number-converter-writes-little-endian",
        "converters.number:_IntegerConverter._pack",
        'int(value).to_bytes(self._width, "big", signed=True)',
        'int(value).to_bytes(self._width, "little", signed=True)',
        ("LongConverter", "IntegerConverter", "ShortConverter"),
    ),
    Mutant(
        "drop-headers-keeps-the-first-of-a-name",
        _T + "drop_headers:DropHeaders.apply_batch",
        "tuple(h for h in row if h[0] not in names)",
        "tuple(h for i, h in enumerate(row) if h[0] not in names or i == 0)",
        ("DropHeaders",),
    ),
    Mutant(
        "set-schema-metadata-keeps-the-old-name",
        _T + "set_schema_metadata:SetSchemaMetadata._derive_schema",
        "self.schema_name if self.schema_name is not None else schema.name",
        "schema.name if schema.name is not None else self.schema_name",
        ("SetSchemaMetadata$Value", "SetSchemaMetadata$Key"),
    ),
    Mutant(
        "record-is-tombstone-takes-an-empty-value-for-null",
        "smt.predicates.record_is_tombstone:RecordIsTombstone.test_batch",
        "[value is None for value in batch.value]",
        "[not value for value in batch.value]",
        ("RecordIsTombstone",),
    ),
    Mutant(
        "value-to-key-nulls-falsy-fields",
        _T + "value_to_key:ValueToKey._key_from_map",
        "key[path.last] = value.get(path.last)",
        "key[path.last] = value.get(path.last) or None",
        ("ValueToKey",),
    ),
    Mutant(
        "extract-field-reads-the-key-of-the-first-field",
        _T + "extract_field:ExtractField.apply_batch",
        "return value.get(name)",
        "return value.get(name, next(iter(value.values()), None))",
        ("ExtractField$Value", "ExtractField$Key"),
    ),
    Mutant(
        "replace-field-include-wins-over-exclude",
        _T + "replace_field:ReplaceField.keeps",
        "name not in self.exclude and (not self.include or name in self.include)",
        "name in self.include or (name not in self.exclude and not self.include)",
        ("ReplaceField$Value", "ReplaceField$Key"),
    ),
    Mutant(
        "timestamp-converter-unix-precision-inverted",
        _T + "_timestamps:to_millis",
        "multiply, divide = _UNIX_TO_MILLIS[precision]",
        "divide, multiply = _UNIX_TO_MILLIS[precision]",
        ("TimestampConverter$Value over times", "TimestampConverter$Key over times"),
    ),
    Mutant(
        "timestamp-converter-date-rounds-up",
        _T + "_timestamps:from_millis",
        "days_to_date(millis // MILLIS_PER_DAY)",
        "days_to_date(-(-millis // MILLIS_PER_DAY))",
        ("TimestampConverter$Value over times", "TimestampConverter$Key over times"),
    ),
    Mutant(
        "timestamp-converter-time-drops-the-milliseconds",
        _T + "_timestamps:from_millis",
        "return _dt.time(hour, minute, second, ms * 1000)",
        "return _dt.time(hour, minute, second)",
        ("TimestampConverter$Value over times", "TimestampConverter$Key over times"),
    ),
]

_D = "smt.transforms.debezium."
_DEBEZIUM = ("ExtractNewRecordState (Debezium)",)

#: Planted bugs in our ExtractNewRecordState, for the Debezium oracle (tests/oracle/test_debezium_mutants.py).
DEBEZIUM_MUTANTS = [
    Mutant(
        "unwrap-keeps-tombstones-in-rewrite",
        _D + "extract_new_record_state:ExtractNewRecordState._tombstone",
        "if self.mode not in _KEEPS_TOMBSTONES:",
        "if self.mode not in _REWRITES:",
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-deleted-flag-inverted",
        _D + "extract_new_record_state:ExtractNewRecordState._state",
        '"true" if deleted else "false"',
        '"false" if deleted else "true"',
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-delete-to-tombstone-keeps-the-schema",
        _D + "extract_new_record_state:ExtractNewRecordState._delete",
        "out = record.replace(value=None, value_schema=None)",
        'out = record.replace(value=None, value_schema=envelope.schema.field("before").schema)',
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-drop-mode-keeps-deletes",
        _D + "extract_new_record_state:ExtractNewRecordState._delete",
        'if self.mode == "drop":',
        'if self.mode == "drop" and envelope.get("op") != "d":',
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-routes-a-delete-by-its-new-value",
        _D + "extract_new_record_state:ExtractNewRecordState._delete",
        'self._routed(out, envelope_part(envelope, "before"))',
        "self._routed(out, out.value)",
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-truncates-pass",
        _D + "extract_new_record_state:ExtractNewRecordState.apply",
        "return None  # a truncate event: Debezium drops it",
        "return record",
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-rewrite-copies-raw-nulls",
        _D + "extract_new_record_state:ExtractNewRecordState._state",
        "read = row.get if self.replace_null else row.get_without_default",
        "read = row.get_without_default",
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-added-fields-copy-defaults",
        _D + "extract_new_record_state:ExtractNewRecordState._with_fields",
        "values = [value.get_without_default(field) for field in value.schema.fields]",
        "values = [value.get(field) for field in value.schema.fields]",
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-route-takes-blank-topics",
        _D + "extract_new_record_state:ExtractNewRecordState._routed",
        "if topic is None or not topic.strip()",
        "if topic is None",
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-route-ignores-missing-fields",
        _D + "extract_new_record_state:ExtractNewRecordState._routed",
        'raise DataError(f"{self.route_by} is not a valid field name")',
        "return record",
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-drops-required-fields-when-compatible",
        _D + "extract_new_record_state:ExtractNewRecordState._droppable",
        "if field.schema.optional and field.name in names",
        "if field.name in names",
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-never-drops-from-the-key",
        _D + "extract_new_record_state:ExtractNewRecordState._drop_fields",
        "if self.drop_from_key and record.key is not None:",
        "if self.drop_from_key and record.key is None:",
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-drop-header-read-last",
        _D + "extract_new_record_state:ExtractNewRecordState._drop_fields",
        "next((value for name, value in record.headers if name == self.drop_header), None)",
        "record.header(self.drop_header)",
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-added-field-keeps-its-default",
        _D + "_references:FieldReference.schema",
        "_optional_basics(field.schema)",
        "field.schema",
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-bare-names-read-from-source-only",
        _D + "_references:_block_of",
        'return "transaction" if field in _TRANSACTION_FIELDS else "source"',
        'return "source"',
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-rename-form-ignored",
        _D + "_references:FieldReference.__init__",
        'prefix + (rename or ("_".join(parts)))',
        'prefix + "_".join(parts)',
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-headers-only-for-rows-with-after",
        _D + "extract_new_record_state:ExtractNewRecordState.apply",
        "record = self._with_headers(record, envelope)",
        'record = self._with_headers(record, envelope) if envelope.get("after") is not None else record',
        _DEBEZIUM,
    ),
    Mutant(
        "unwrap-any-struct-is-an-envelope",
        _D + "extract_new_record_state:is_envelope",  # where the transform looks it up
        "and schema.name.endswith(ENVELOPE_SUFFIX)",
        "",
        _DEBEZIUM,
    ),
]

_CHANGED = ("ExtractChangedRecordState (Debezium)",)

#: Planted bugs in Debezium's other transforms, for tests/oracle/test_debezium_other_mutants.py;
#: ``plugins`` names the family of tests/oracle/_debezium_other/ that must report each.
DEBEZIUM_OTHER_MUTANTS = [
    Mutant(
        "changed-swaps-the-lists",
        _D + "extract_changed_record_state:ExtractChangedRecordState.apply",
        "(unchanged if same else changed).append(field.name)",
        "(changed if same else unchanged).append(field.name)",
        _CHANGED,
    ),
    Mutant(
        "changed-headers-only-for-updates",
        _D + "extract_changed_record_state:ExtractChangedRecordState.apply",
        "added = []",
        "added = []\n    if after is None or before is None:\n        return record",
        _CHANGED,
    ),
    Mutant(
        "changed-compares-with-defaults",
        _D + "extract_changed_record_state:ExtractChangedRecordState.apply",
        "_equal(after.get_without_default(field.name), before.get_without_default(field.name))",
        "_equal(after.get(field.name), before.get(field.name))",
        _CHANGED,
    ),
    Mutant(
        "changed-takes-a-blank-header-name",
        _D + "extract_changed_record_state:_name_or_none",
        "name if name is not None and name.strip() else None",
        "name if name is not None else None",
        _CHANGED,
    ),
    Mutant(
        "changed-before-the-other-headers",
        _D + "extract_changed_record_state:ExtractChangedRecordState.apply",
        "record.replace(headers=record.headers + tuple(added))",
        "record.replace(headers=tuple(added) + record.headers)",
        _CHANGED,
    ),
]

_TIMEZONE = ("TimezoneConverter (Debezium)",)

DEBEZIUM_OTHER_MUTANTS += [
    Mutant(
        "timezone-takes-the-later-offset-in-an-overlap",
        _D + "_time_shifts:_offset_at_wall_clock",
        "fold=0",
        "fold=1",
        _TIMEZONE,
    ),
    Mutant(
        "timezone-source-epochs-shifted-backwards",
        _D + "timezone_converter:shift_epoch_field",  # where the transform looks it up
        "return count + _whole_seconds",
        "return count - _whole_seconds",
        _TIMEZONE,
    ),
    Mutant(
        "timezone-source-block-converted-unasked",
        _D + "timezone_converter:TimezoneConverter._convert",
        'if part is None or (block == "source" and not wanted["source"]):',
        "if part is None:",
        _TIMEZONE,
    ),
    Mutant(
        "timezone-include-without-fields-converts-nothing",
        _D + "timezone_converter:TimezoneConverter._choose",
        "(INCLUDE, found) if found else (ALL, found)",
        "(INCLUDE, found)",
        _TIMEZONE,
    ),
    Mutant(
        "timezone-exclude-skips-unmatched-events",
        _D + "timezone_converter:TimezoneConverter._choose",
        "if found is None:\n        return ALL, frozenset()",
        "if found is None:\n        return None",
        _TIMEZONE,
    ),
    Mutant(
        "timezone-null-keeps-its-default-unconverted",
        _D + "timezone_converter:TimezoneConverter._convert_block",
        "value = part.get(field)",
        "value = part.get_without_default(field)",
        _TIMEZONE,
    ),
    Mutant(
        "timezone-empty-list-read-as-no-rules",
        _D + "timezone_converter:_debezium_list",
        "if raw is None:",
        "if not raw:",
        _TIMEZONE,
    ),
]

_ROUTER = ("ByLogicalTableRouter (Debezium)",)

DEBEZIUM_OTHER_MUTANTS += [
    Mutant(
        "router-key-schema-name-unadjusted",
        _D + "by_logical_table_router:ByLogicalTableRouter._key_schema",
        'name(self.adjust(new_topic + ".Key"))',
        'name(new_topic + ".Key")',
        _ROUTER,
    ),
    Mutant(
        "router-identifier-ignores-key-field-regex",
        _D + "by_logical_table_router:ByLogicalTableRouter._identifier",
        "return self.key_regex.sub(self.key_replacement, topic, count=1)",
        "return topic",
        _ROUTER,
    ),
    Mutant(
        "router-replaces-every-match",
        _D + "by_logical_table_router:ByLogicalTableRouter._new_topic",
        "self.topic_regex.sub(self.topic_replacement, topic, count=1)",
        "self.topic_regex.sub(self.topic_replacement, topic)",
        _ROUTER,
    ),
    Mutant(
        "router-regex-finds-part-of-the-topic",
        _D + "by_logical_table_router:ByLogicalTableRouter._new_topic",
        "if not self.topic_regex.fullmatch(topic):",
        "if not self.topic_regex.search(topic):",
        _ROUTER,
    ),
    Mutant(
        "router-key-field-added-without-uniqueness",
        _D + "by_logical_table_router:ByLogicalTableRouter._key_schema",
        "if self.enforce_uniqueness:",
        "if True:",
        _ROUTER,
    ),
    Mutant(
        "router-rows-copy-defaults",
        _D + "by_logical_table_router:ByLogicalTableRouter._envelope",
        "value.put(row_field.name, state.get_without_default(row_field))",
        "value.put(row_field.name, state.get(row_field))",
        _ROUTER,
    ),
    Mutant(
        "router-empty-topic-routed",
        _D + "by_logical_table_router:ByLogicalTableRouter.apply",
        "if not new_topic:",
        "if False:",
        _ROUTER,
    ),
]

_HEADER_TO_VALUE = ("HeaderToValue (Debezium)",)

DEBEZIUM_OTHER_MUTANTS += [
    Mutant(
        "header-to-value-move-keeps-the-headers",
        _D + "header_to_value:HeaderToValue.apply",
        "if self.move:",
        "if False:",
        _HEADER_TO_VALUE,
    ),
    Mutant(
        "header-to-value-move-drops-every-header",
        _D + "header_to_value:HeaderToValue.apply",
        "headers = tuple(h for h in headers if h[0] not in self.field_of)",
        "headers = ()",
        _HEADER_TO_VALUE,
    ),
    Mutant(
        "header-to-value-last-mapping-wins",
        _D + "header_to_value:HeaderToValue.configure",
        "self.field_of.setdefault(header, field)",
        "self.field_of[header] = field",
        _HEADER_TO_VALUE,
    ),
    Mutant(
        "header-to-value-operation-case-sensitive",
        _D + "header_to_value:HeaderToValue.configure",
        'self.config["operation"].lower() == "move"',
        'self.config["operation"] == "move"',
        _HEADER_TO_VALUE,
    ),
    Mutant(
        "header-to-value-fields-left-empty",
        _D + "header_to_value:HeaderToValue.apply",
        "updated.put(field, header_value)",
        "pass",
        _HEADER_TO_VALUE,
    ),
]

_PARTITION = ("PartitionRouting (Debezium)",)

DEBEZIUM_OTHER_MUTANTS += [
    Mutant(
        "partition-change-always-reads-after",
        _D + "partition_routing:PartitionRouting._read",
        'step = "before" if _operation(envelope) == "d" else "after"',
        'step = "after"',
        _PARTITION,
    ),
    Mutant(
        "partition-hash-absolute-not-masked",
        _D + "partition_routing:PartitionRouting.apply",
        "total = int32(sum(hashes)) & _MAX_INT",
        "total = abs(int32(sum(hashes)))",
        _PARTITION,
    ),
    Mutant(
        "partition-missing-field-fails",
        _D + "partition_routing:PartitionRouting._read",
        "if field is None:\n        return None\n    value",
        'if field is None:\n        raise DataError("no such field")\n    value',
        _PARTITION,
    ),
    Mutant(
        "partition-truncates-routed",
        _D + "partition_routing:PartitionRouting.apply",
        "if _operation(envelope) in _SKIPPED_OPS:",
        "if False:",
        _PARTITION,
    ),
    Mutant(
        "partition-murmur-ignored",
        _D + "partition_routing:PartitionRouting.configure",
        '_HASHES[self.config["partition.hash.function"].strip().lower()]',
        '_HASHES["java"]',
        _PARTITION,
    ),
]

_OUTBOX = ("EventRouter (Debezium)",)

DEBEZIUM_OTHER_MUTANTS += [
    Mutant(
        "outbox-error-behaviour-fails-updates",
        _D + "outbox.event_router:EventRouter._unexpected_update",
        'if self.on_update == "fatal":',
        'if self.on_update != "warn":',
        _OUTBOX,
    ),
    Mutant(
        "outbox-blank-payload-kept",
        _D + "outbox.event_router:EventRouter._route",
        "not _java_trim(payload)",
        "not payload",
        _OUTBOX,
    ),
    Mutant(
        "outbox-no-id-header",
        _D + "outbox.event_router:EventRouter._route",
        'headers = record.headers + (("id", event_id),)',
        "headers = record.headers",
        _OUTBOX,
    ),
    Mutant(
        "outbox-keyed-by-event-id",
        _D + "outbox.event_router:EventRouter._route",
        "key = event.get(self.key_column)",
        "key = event.get(self.id_column)",
        _OUTBOX,
    ),
    Mutant(
        "outbox-missing-columns-always-ignored",
        _D + "outbox.event_router:EventRouter._route",
        "if self.ignore_missing and event_schema.field(field.column) is None:",
        "if event_schema.field(field.column) is None:",
        _OUTBOX,
    ),
]

DEBEZIUM_OTHER_MUTANTS += [
    Mutant(
        "outbox-expansion-failure-drops-the-inferred-schema",
        _D + "outbox.event_router:EventRouter._expanded",
        "return inferred, payload",
        "return schema, payload",
        _OUTBOX,
    ),
    Mutant(
        "outbox-json-null-fields-always-left-out",
        _D + "outbox._json_payload:_InferSchema.of",
        "return Schema.OPTIONAL_BYTES_SCHEMA if self.bytes_for_null else None",
        "return None",
        _OUTBOX,
    ),
    Mutant(
        "outbox-json-ints-all-int64",
        _D + "outbox._json_payload:_number_schema",
        "return Schema.OPTIONAL_INT32_SCHEMA",
        "return Schema.OPTIONAL_INT64_SCHEMA",
        _OUTBOX,
    ),
]
