"""Debezium's list-key validators (``Field.notContainSpaceInAnyElement``, ``notContainEmptyElements``), in its words."""

from __future__ import annotations

from typing import Any


def no_spaces_or_empty_elements(value: Any) -> None:
    """Debezium checks spaces first, then empty elements; each message is its own."""
    if any(" " in item for item in value):
        raise ValueError("Element(s) containing space not permitted")
    if any(item == "" for item in value):
        raise ValueError("Empty string element(s) not permitted")
