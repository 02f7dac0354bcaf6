"""ExtractChangedRecordState: headers naming the fields an update changed, and those it left alone."""

from __future__ import annotations

import math
from typing import Any

from smt.config import ConfigDef, ConfigType, Importance
from smt.record import Record
from smt.transform import Transform
from smt.transforms._requirements import require_struct
from smt.transforms.debezium._envelope import ENVELOPE_SUFFIX
from smt.transforms.debezium.extract_new_record_state import DEBEZIUM_PACKAGE


class ExtractChangedRecordState(Transform):
    """Add headers listing the ``after`` fields whose values differ from ``before`` and those that do not.

    Each configured header (``header.changed.name``, ``header.unchanged.name``) is a list of field
    names, in the ``after`` schema's order. As in Debezium 3.6, the headers are added to every
    change event, not only to updates: an event without both ``before`` and ``after`` (create,
    snapshot read, delete) gets empty lists. Values are compared without their schema defaults.
    Tombstones and records that are not Debezium envelopes (no value schema, or one not named
    ``*.Envelope``) pass unchanged. Debezium compares ``bytes`` fields by identity, so it reports a
    bytes column changed in every update; this implementation compares their content.
    """

    name = "ExtractChangedRecordState"
    aliases = (DEBEZIUM_PACKAGE + "ExtractChangedRecordState",)
    config_def = (
        ConfigDef()
        .define(
            "header.changed.name",
            ConfigType.STRING,
            None,
            None,
            Importance.LOW,
            "Name of the header that lists the changed fields; null or blank adds no such header.",
        )
        .define(
            "header.unchanged.name",
            ConfigType.STRING,
            None,
            None,
            Importance.LOW,
            "Name of the header that lists the unchanged fields; null or blank adds no such header.",
        )
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"value", "headers"})

    def changed_fields(self) -> frozenset[str]:
        return frozenset({"headers"})

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        self.changed_header = _name_or_none(self.config["header.changed.name"])
        self.unchanged_header = _name_or_none(self.config["header.unchanged.name"])

    def apply(self, record: Record) -> Record:
        schema = record.value_schema
        if record.value is None or schema is None or schema.name is None or not schema.name.endswith(ENVELOPE_SUFFIX):
            return record
        envelope = require_struct(record.value, "Record value should be struct.")
        after, before = envelope.get("after"), envelope.get("before")
        changed: list[str] = []
        unchanged: list[str] = []
        if after is not None and before is not None:
            after = require_struct(after, "After value should be struct.")
            before = require_struct(before, "Before value should be struct.")
            for field in after.schema.fields:
                same = _equal(after.get_without_default(field.name), before.get_without_default(field.name))
                (unchanged if same else changed).append(field.name)
        added = []
        if self.changed_header is not None:
            added.append((self.changed_header, changed))
        if self.unchanged_header is not None:
            added.append((self.unchanged_header, unchanged))
        return record.replace(headers=record.headers + tuple(added)) if added else record


def _name_or_none(name: str | None) -> str | None:
    return name if name is not None and name.strip() else None


def _equal(after: Any, before: Any) -> bool:
    # Java's Objects.equals: a NaN equals a NaN (Double.equals compares the bits).
    if isinstance(after, float) and isinstance(before, float) and math.isnan(after) and math.isnan(before):
        return True
    return after == before


__all__ = ["ExtractChangedRecordState"]
