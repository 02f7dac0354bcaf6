"""Config validators worded as Kafka words them, for messages users already know."""

from __future__ import annotations

from typing import Any

__all__ = ["kafka_non_empty_string"]


def kafka_non_empty_string(value: Any) -> None:
    """Kafka's ``ConfigDef.NonEmptyString``."""
    if not str(value):
        raise ValueError("String must be non-empty")
