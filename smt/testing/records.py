"""Record factories with sensible defaults."""

from __future__ import annotations

from typing import Any

from smt.record import Record, TimestampType

#: Defaults of :func:`make_record`; any field can be overridden by keyword.
RECORD_DEFAULTS: dict[str, Any] = {
    "topic": "test-topic",
    "partition": 0,
    "offset": 0,
    "timestamp": 1_700_000_000_000,
    "timestamp_type": TimestampType.CREATE_TIME,
    "key": b"key",
    "value": b"value",
    "headers": (),
}


def make_record(**fields: Any) -> Record:
    """A :class:`Record` with test defaults (topic ``test-topic``, key ``b"key"``, ...)."""
    return Record(**{**RECORD_DEFAULTS, **fields})
