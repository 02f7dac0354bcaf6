"""How deeply a record's data may nest: the limit, its check, and room to walk that deep.

Kafka's JsonConverter reads and writes through Jackson, whose
``StreamReadConstraints``/``StreamWriteConstraints`` refuse a document nested
more than 1000 arrays/objects deep (Jackson 2.15+, the default Kafka 4.1
ships).  We take the same limit for every walk over record data (JSON read
and write, Avro, Flatten, Cast, ReplaceField, Kafka's ``Values`` parser): a
value up to :data:`MAX_NESTING_DEPTH` levels deep goes through, a deeper one
fails alone, as a :class:`NestingTooDeep` data error naming the limit, and the
run goes on.

The walks are recursive Python; :func:`allow_deep_recursion` gives the
interpreter the frames to walk :data:`MAX_NESTING_DEPTH` levels (a few
frames per level).  Python 3.11 runs Python-to-Python calls without growing
the C stack, so the higher limit costs no native stack.
"""

from __future__ import annotations

import sys
from typing import Any

from smt.data.struct import Struct
from smt.errors import DataError

__all__ = ["MAX_NESTING_DEPTH", "NestingTooDeep", "allow_deep_recursion", "check_nesting", "nesting_depth"]

#: Arrays, maps and structs nested in one another: Jackson's default ``maxNestingDepth``.
MAX_NESTING_DEPTH = 1000

#: Python frames a walk may take per level (a function and a comprehension, with room to spare).
_FRAMES_PER_LEVEL = 8
_RECURSION_LIMIT = MAX_NESTING_DEPTH * _FRAMES_PER_LEVEL + 2000


class NestingTooDeep(DataError):
    """A value nested deeper than :data:`MAX_NESTING_DEPTH`: a data error, failing its record alone."""

    def __init__(self, what: str = "value") -> None:
        super().__init__(
            f"{what} is nested more than {MAX_NESTING_DEPTH} levels deep (arrays, maps and structs in one "
            f"another), the limit spark-smt shares with Kafka's JsonConverter (Jackson's maxNestingDepth)"
        )


def nesting_depth(value: Any, stop_after: int = MAX_NESTING_DEPTH) -> int:
    """How many containers (lists, tuples, dicts, structs) nest in ``value``; counting stops past ``stop_after``.

    Iterative: any depth is measured without recursion.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        kind = type(item)
        if kind is dict:
            children = item.values()
        elif kind is list or kind is tuple:
            children = item
        elif isinstance(item, Struct):
            children = item._values
        else:
            continue
        if depth > deepest:
            deepest = depth
            if deepest > stop_after:
                return deepest
        for child in children:
            if type(child) in _CONTAINERS or isinstance(child, Struct):
                push((child, depth + 1))
    return deepest


_CONTAINERS = (dict, list, tuple)


def check_nesting(value: Any, what: str = "value") -> None:
    """Raise :class:`NestingTooDeep` when ``value`` nests deeper than :data:`MAX_NESTING_DEPTH`."""
    if nesting_depth(value) > MAX_NESTING_DEPTH:
        raise NestingTooDeep(what)


def allow_deep_recursion() -> None:
    """Let recursive walks reach :data:`MAX_NESTING_DEPTH` levels (raises the recursion limit, never lowers it)."""
    if sys.getrecursionlimit() < _RECURSION_LIMIT:
        sys.setrecursionlimit(_RECURSION_LIMIT)
