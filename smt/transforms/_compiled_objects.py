"""The compiled forms over whole records of the transforms that set top-level fields of a schemaless value.

A record whose value the value converter reads as a flat JSON object
(:class:`smt.compiled.CompiledObject`, the JVM streaming path's) is rewritten
in Spark SQL, entry by entry, as the Python path rewrites its dict:

- ``MaskField$Value``: each named field present is masked in place, by its
  kind; each one absent is appended as null, in the order named;
- ``InsertField$Value``: the static value and the record's topic, partition,
  offset and timestamp are set in the order Kafka's configuration lists
  them, each in place where its field is present, else appended.

What a field becomes is what the Python transform gives, computed once on the
driver: the mask of each kind is the transform's own mask of a sample value,
written by the value converter (a kind the transform cannot mask with its
``replacement`` leaves the record to the Python path, which fails it).
A tombstone (a null value) passes through both, as in Python.

Spark SQL, driven by ``tests/parity/test_compiled_object_parity.py`` rather
than by the mutation harness, which runs the Python paths.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from smt.compiled import CompiledObject, CompiledRecord, NotCompilable
from smt.errors import DataError

__all__ = ["insert_fields", "mask_fields"]

#: A sample Python value of each kind an object's entry has (see :class:`smt.compiled.CompiledObject`).
_SAMPLES = {"STRING": "x", "BIGINT": 1, "BOOLEAN": True, "VOID": None, "DECIMAL": 1.5}
#: Where ``_SAMPLES``'s values and the values a transform sets are Python objects: their kind.
_KINDS = {str: "STRING", int: "BIGINT", bool: "BOOLEAN", type(None): "VOID", float: "DECIMAL"}


def mask_fields(
    record: CompiledRecord, part: str, paths: Iterable[Any], mask: Callable[[Any], Any], functions: Any
) -> CompiledRecord:
    """``record`` with the fields of ``paths`` masked by ``mask`` (MaskField's); raises NotCompilable."""
    F = functions
    value = _object_of(record, part, paths, "MaskField")
    names = list(dict.fromkeys(path.last for path in paths))
    masks = {kind: _masked(mask, sample, value.token) for kind, sample in _SAMPLES.items()}

    def masked(entry: Any) -> Any:  # by the entry's kind; null for a kind that cannot be masked
        kind, token = F.lit(None).cast("string"), F.lit(None).cast("string")
        for sample_kind, found in masks.items():
            if found is not None:
                kind = F.when(entry["kind"] == sample_kind, F.lit(found[0])).otherwise(kind)
                token = F.when(entry["kind"] == sample_kind, F.lit(found[1])).otherwise(token)
        return _entry(F, entry["key"], kind, token)

    unmaskable = [kind for kind, found in masks.items() if found is None]
    if unmaskable:
        named = F.array(*(F.lit(name) for name in names))
        cannot = F.exists(value.entries, lambda e: F.array_contains(named, e["key"]) & e["kind"].isin(*unmaskable))
        value = value.vouched(~F.coalesce(cannot, F.lit(False)))
    null_kind, null_token = masks["VOID"]  # an absent field is masked as null (a mask of None never fails)
    absent = {name: _entry(F, F.lit(name), F.lit(null_kind), F.lit(null_token)) for name in names}
    return _with_entries(record, value, _updated(F, value, names, masked, absent), F)


def insert_fields(
    record: CompiledRecord, part: str, insertions: dict[str, Any], static_value: Any, functions: Any
) -> CompiledRecord:
    """``record`` with InsertField's ``insertions`` (kind → its field) set: the record's topic,
    partition, offset and timestamp, and ``static_value``; raises NotCompilable."""
    F = functions
    value = _object_of(record, part, (insertion.path for insertion in insertions.values()), "InsertField")
    columns = record.columns
    set_by_kind = {
        "topic": lambda: ("STRING", _quoted(F, columns["topic"])),
        "partition": lambda: ("BIGINT", columns["partition"].cast("string")),
        "offset": lambda: ("BIGINT", columns["offset"].cast("string")),
        "timestamp": lambda: ("BIGINT", F.unix_millis(columns["timestamp"]).cast("string")),
        "static": lambda: (_KINDS[type(static_value)], F.lit(value.token(static_value))),
    }
    # Set one after the other, a field named twice keeps its first place and takes its last value.
    fields: dict[str, Any] = {}
    for kind, insertion in insertions.items():
        field_kind, token = set_by_kind[kind]()
        fields[insertion.path.last] = _entry(F, F.lit(insertion.path.last), F.lit(field_kind), token)
        if kind != "static":  # Python inserts no field for a record without it (none read from Kafka)
            value = value.vouched(columns[kind].isNotNull())

    def replaced(entry: Any) -> Any:
        chosen = entry
        for name, field in fields.items():
            chosen = F.when(entry["key"] == name, field).otherwise(chosen)
        return chosen

    return _with_entries(record, value, _updated(F, value, list(fields), replaced, fields), F)


def _object_of(record: CompiledRecord, part: str, paths: Iterable[Any], transform: str) -> CompiledObject:
    """The record's value object, where the transform's form applies to it; raises NotCompilable."""
    if part != "value":
        raise NotCompilable(f"{transform}$Key has no compiled form over whole records")
    if any(path.nested for path in paths):
        raise NotCompilable(f"{transform} compiles for top-level fields only")
    if record.value_object is None:
        raise NotCompilable(f"the value converter reads no JSON object in Spark SQL for {transform}")
    return record.value_object


def _masked(mask: Callable[[Any], Any], sample: Any, token: Callable[[Any], str]) -> tuple[str, str] | None:
    """(kind, JSON text) of ``mask(sample)``, or None where masking the sample's kind, or writing the
    masked value (an infinite replacement), fails in Python."""
    try:
        masked = mask(sample)
        written = token(masked)
    except DataError:  # a converter's error is one too
        return None
    kind = _KINDS.get(type(masked))
    if kind is None:
        raise NotCompilable(f"a masked value of type {type(masked).__name__} has no compiled kind")
    return kind, written


def _quoted(F: Any, text: Any) -> Any:
    """A topic's JSON text: Kafka's topic names hold only letters, digits, '.', '_' and '-'."""
    return F.concat(F.lit('"'), text, F.lit('"'))


def _entry(F: Any, key: Any, kind: Any, token: Any) -> Any:
    return F.struct(key.alias("key"), kind.alias("kind"), token.alias("token"))


def _updated(
    F: Any, value: CompiledObject, names: list[str], replaced: Callable[[Any], Any], absent: dict[str, Any]
) -> Any:
    """``value``'s entries with each of ``names`` updated, as Python updates a dict: an entry of one of
    them ``replaced(entry)`` in place, and the ``absent`` entry of each one missing appended, in order.
    One pass over the entries (Spark would copy the whole expression of entries read twice)."""
    for name in names:
        if value.token(name) != f'"{name}"':  # entries hold names unescaped
            raise NotCompilable(f"field name {name!r} is escaped in JSON")
    named = F.array(*(F.lit(name) for name in names))
    entries = F.transform(value.entries, lambda e: F.when(F.array_contains(named, e["key"]), replaced(e)).otherwise(e))
    missing = F.filter(F.array(*absent.values()), lambda a: ~F.exists(value.entries, lambda e: e["key"] == a["key"]))
    return F.concat(entries, missing)


def _with_entries(record: CompiledRecord, value: CompiledObject, entries: Any, F: Any) -> CompiledRecord:
    """``record`` whose value object has ``entries`` (a null value stays null: tombstones pass)."""
    kept_null = F.when(value.entries.isNotNull(), entries)
    return record.with_value_object(CompiledObject(kept_null, value.token, value.exact))
