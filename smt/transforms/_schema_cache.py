"""A small cache of derived schemas, keyed by the input schema.

Kafka Connect keeps the schema a transform derives from an input schema in a
16-entry LRU cache, because records of one topic share a handful of schemas.
Schemas here are immutable and hashable, so they key a dict directly.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

__all__ = ["SchemaCache"]


class SchemaCache:
    """Derived schema per input schema; ``misses`` counts the derivations made."""

    __slots__ = ("_entries", "_size", "misses")

    def __init__(self, size: int = 16) -> None:
        self._entries: OrderedDict[Any, Any] = OrderedDict()
        self._size = size
        self.misses = 0

    def get(self, schema: Any, derive: Callable[[Any], Any]) -> Any:
        """The schema derived from ``schema``, computing it with ``derive`` on a miss."""
        entries = self._entries
        try:
            found = entries[schema]
        except KeyError:
            self.misses += 1
            found = derive(schema)
            entries[schema] = found
            if len(entries) > self._size:
                entries.popitem(last=False)
            return found
        entries.move_to_end(schema)
        return found

    def __len__(self) -> int:
        return len(self._entries)
