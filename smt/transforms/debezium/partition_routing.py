"""PartitionRouting: choose a change event's partition by hashing fields of the event."""

from __future__ import annotations

from typing import Any

from smt.config import REQUIRED, ConfigDef, ConfigType, Importance, one_of
from smt.data import Schema, Struct, Type
from smt.errors import DataError
from smt.record import Record
from smt.transform import Transform
from smt.transforms._requirements import require_struct
from smt.transforms.debezium._envelope import ENVELOPE_SUFFIX
from smt.transforms.debezium._java_hash import int32, java_hash, murmur_hash
from smt.transforms.debezium.extract_new_record_state import DEBEZIUM_PACKAGE

CHANGE = "change"  # Debezium's special path step: before for a delete, after otherwise
_SKIPPED_OPS = frozenset({"t", "m"})  # truncate and generic messages keep their partition
_HASHES = {"java": java_hash, "murmur": murmur_hash}
_MAX_INT = 0x7FFFFFFF


def _required_without_empty_elements(value: Any) -> None:
    if not value:
        raise ValueError("A value is required")
    if any(item == "" for item in value):
        raise ValueError("Empty string element(s) not permitted")


def _positive(value: int) -> None:
    if value <= 0:
        raise ValueError("A positive, non-zero integer value is expected")


class PartitionRouting(Transform):
    """Set a Debezium change event's partition to the sum of its fields' hashes modulo ``partition.topic.num``.

    Each entry of ``partition.payload.fields`` is a dotted path into the envelope (``op``,
    ``source.table``, ``after.id``); ``change.<field>`` reads ``before`` for a delete and
    ``after`` otherwise. A path the event's schema lacks, or a null value, is left out; when all
    are left out the record is unchanged. As in Debezium, a path through a null struct
    (``after.id`` on a delete) fails the record. ``partition.hash.function=java`` sums Java's
    ``hashCode`` of the values, ``murmur`` Debezium's MurmurHash3 of them, so partitions match a
    Debezium connector's. Tombstones, non-envelopes, truncate and message events pass unchanged.
    Struct values cannot be hashed (their Java hash differs from run to run), bytes hash by
    content, and an unknown hash function is refused (Debezium falls back to java).
    """

    name = "PartitionRouting"
    aliases = (DEBEZIUM_PACKAGE + "partitions.PartitionRouting",)
    config_def = (
        ConfigDef()
        .define(
            "partition.payload.fields",
            ConfigType.LIST,
            REQUIRED,
            _required_without_empty_elements,
            Importance.HIGH,
            "Payload fields to use to calculate the partition, as dotted paths into the envelope "
            "(after.name, source.table, op); change.<field> reads after, or before for a delete. "
            "A field the event lacks is not used.",
        )
        .define(
            "partition.topic.num",
            ConfigType.INT,
            REQUIRED,
            _positive,
            Importance.HIGH,
            "Number of partitions of the topic this SMT acts on; use the TopicNameMatches predicate to select "
            "records by topic.",
        )
        .define(
            "partition.hash.function",
            ConfigType.STRING,
            "java",
            one_of("java", "murmur", case_sensitive=False),
            Importance.LOW,
            "Hash function of the field values that determines the destination partition: java (hashCode) "
            "or murmur (MurmurHash3).",
        )
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"value", "partition"})

    def changed_fields(self) -> frozenset[str]:
        return frozenset({"partition"})

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.paths = [
            tuple(step.strip() for step in entry.split(".")) for entry in self.config["partition.payload.fields"]
        ]
        self.partitions = self.config["partition.topic.num"]
        self.hash = _HASHES[self.config["partition.hash.function"].strip().lower()]
        self.key = self.context.prefix + "partition.payload.fields"

    def apply(self, record: Record) -> Record:
        schema = record.value_schema
        if record.value is None or schema is None or schema.name is None or not schema.name.endswith(ENVELOPE_SUFFIX):
            return record
        envelope = require_struct(record.value, "partition routing")
        if _operation(envelope) in _SKIPPED_OPS:
            return record
        hashes = []
        for path in self.paths:
            found = self._read(envelope, path)
            if found is not None:
                hashes.append(self._hash(path, *found))
        if not hashes:
            return record
        total = int32(sum(hashes)) & _MAX_INT
        return record.replace(partition=(0 if total == _MAX_INT else total) % self.partitions)

    def _read(self, envelope: Struct, path: tuple[str, ...]) -> tuple[Schema, Any] | None:
        """The schema and value at ``path``, or None when the schema has no such field or the value is null."""
        current = envelope
        for depth, step in enumerate(path[:-1]):
            if step == CHANGE:
                op_field = envelope.schema.field("op")
                if op_field is None or op_field.schema.type is not Type.STRING:
                    return None  # Debezium cannot read the operation, so it leaves the entry out
                step = "before" if _operation(envelope) == "d" else "after"
            field = current.schema.field(step)
            if field is None or field.schema.type is not Type.STRUCT:
                return None
            current = current.get(field)
            if current is None:
                raise DataError(
                    f"Unprocessable message: {'.'.join(path[: depth + 1])} is null, so {self.key} "
                    f"entry {'.'.join(path)} cannot be read"
                )
        field = current.schema.field(path[-1])
        if field is None:
            return None
        value = current.get(field)
        return None if value is None else (field.schema, value)

    def _hash(self, path: tuple[str, ...], schema: Schema, value: Any) -> int:
        try:
            return self.hash(schema, value)
        except DataError as exc:
            raise DataError(f"{self.key} entry {'.'.join(path)}: {exc}") from None


def _operation(envelope: Struct) -> str | None:
    field = envelope.schema.field("op")
    if field is None or field.schema.type is not Type.STRING:
        return None
    return envelope.get(field)


__all__ = ["PartitionRouting"]
