"""``table.fields.additional.placement``: outbox columns copied to the envelope, a header or the partition."""

from __future__ import annotations

from typing import Any, NamedTuple

PLACEMENTS = ("header", "envelope", "partition")


class AdditionalField(NamedTuple):
    column: str
    placement: str
    alias: str


def check_placements(value: Any) -> None:
    """Debezium's pair-or-trio check, in its words; then a placement it knows (Debezium fails later)."""
    for mapping in value:
        parts = _java_split(mapping)
        if len(parts) not in (2, 3):
            raise ValueError(
                f"A comma-separated list of valid String pairs or trios is expected but got: [{', '.join(value)}]"
            )
        if parts[1].strip().lower() not in PLACEMENTS:
            raise ValueError(
                f"placement of {parts[0].strip()} must be one of {', '.join(PLACEMENTS)}; got '{parts[1].strip()}'"
            )


def parse_placements(value: list[str]) -> list[AdditionalField]:
    fields = []
    for mapping in value:
        parts = [part.strip() for part in _java_split(mapping)]
        fields.append(AdditionalField(parts[0], parts[1].lower(), parts[2] if len(parts) == 3 else parts[0]))
    return fields


def _java_split(text: str) -> list[str]:
    parts = text.split(":")
    while len(parts) > 1 and parts[-1] == "":  # Java's split drops trailing empty strings
        parts.pop()
    return parts
