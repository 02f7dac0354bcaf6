"""The record model: one Kafka Connect record, immutable.

A :class:`Record` carries the same parts as a Kafka Connect ``ConnectRecord``:
topic, partition, offset, timestamp (epoch milliseconds) with its type, key,
value, ordered headers (duplicate names allowed) and optional key/value
schemas.  Its Spark row layout is exactly Spark's Kafka source schema
(:mod:`smt.row_layout`), so the Kafka connector plugs in unchanged.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable

from smt.row_layout import KAFKA_ROW_FIELDS, KAFKA_ROW_SCHEMA_DDL, KAFKA_ROW_TYPES

__all__ = [
    "Record",
    "TimestampType",
    "KAFKA_ROW_SCHEMA_DDL",
    "KAFKA_ROW_FIELDS",
    "KAFKA_ROW_TYPES",
]


class TimestampType:
    """Kafka's timestamp types, as Spark's Kafka source numbers them."""

    NO_TIMESTAMP_TYPE = -1
    CREATE_TIME = 0
    LOG_APPEND_TIME = 1


@dataclasses.dataclass(frozen=True, slots=True)
class Record:
    """One record. Build with keywords; derive new records with :meth:`replace`.

    ``headers`` is kept as a tuple of ``(name, value)`` pairs in order; any
    iterable of pairs is accepted by the constructor.
    """

    topic: str = ""
    partition: int | None = None
    offset: int | None = None
    timestamp: int | None = None
    timestamp_type: int = TimestampType.CREATE_TIME
    key: Any = None
    value: Any = None
    headers: tuple[tuple[str, Any], ...] = ()
    key_schema: Any = None
    value_schema: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.headers, tuple) or any(not isinstance(h, tuple) for h in self.headers):
            object.__setattr__(self, "headers", _header_tuple(self.headers))

    def replace(self, **changes: Any) -> "Record":
        """Return a copy with ``changes`` applied (Kafka Connect's ``newRecord``).

        As ``dataclasses.replace``, in half its time (transforms call it once or twice per record): the
        fields are copied, not passed through ``__init__``; new headers are normalized as ``__init__`` does.
        """
        unknown = changes.keys() - _FIELD_NAMES
        if unknown:
            raise TypeError(f"Record has no field {sorted(unknown)[0]!r}")
        new = object.__new__(type(self))
        for name in _FIELD_NAMES:
            _set(new, name, changes[name] if name in changes else getattr(self, name))
        if "headers" in changes:
            new.__post_init__()
        return new

    def header(self, name: str, default: Any = None) -> Any:
        """The value of the last header called ``name``, or ``default``."""
        for header_name, value in reversed(self.headers):
            if header_name == name:
                return value
        return default

    def with_header(self, name: str, value: Any) -> "Record":
        """A copy with one header appended (existing ones are kept)."""
        return self.replace(headers=self.headers + ((name, value),))

    def without_headers(self, names: Iterable[str]) -> "Record":
        """A copy with every header of the given names removed."""
        drop = set(names)
        return self.replace(headers=tuple(h for h in self.headers if h[0] not in drop))


#: The fields a copy carries over (:meth:`Record.replace`), and how a frozen one is set.
_FIELD_NAMES = frozenset(field.name for field in dataclasses.fields(Record))
_set = object.__setattr__


def _header_tuple(headers: Iterable[Any]) -> tuple[tuple[str, Any], ...]:
    pairs = []
    for header in headers or ():
        name, value = header
        pairs.append((name, value))
    return tuple(pairs)
