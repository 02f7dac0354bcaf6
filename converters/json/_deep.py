"""JSON text for values nested deeper than orjson writes (254 levels), up to the nesting limit.

orjson refuses to write past 254 nested arrays/objects ("Recursion limit
reached"); Jackson, and so Kafka's JsonConverter, writes up to 1000.  This
writer takes over for those values: iterative, the same compact bytes orjson
writes (every scalar is still written by orjson), and a value past
:data:`smt.data.nesting.MAX_NESTING_DEPTH` is a :class:`NestingTooDeep`.
"""

from __future__ import annotations

from typing import Any

import orjson

from smt.data.nesting import MAX_NESTING_DEPTH, NestingTooDeep

#: orjson's own limit: values nested deeper need :func:`dumps_deep`.
ORJSON_MAX_DEPTH = 254


def dumps_deep(payload: Any) -> bytes:
    """``orjson.dumps(payload)`` for a JSON value (dicts with str keys, lists, scalars) of any allowed depth."""
    out: list[bytes] = []
    # Work items: a value to write, or the bytes that close a container.
    stack: list[tuple[Any, int] | bytes] = [(payload, 0)]
    dumps = orjson.dumps
    while stack:
        item = stack.pop()
        if type(item) is bytes:
            out.append(item)
            continue
        value, depth = item
        kind = type(value)
        if kind is dict or kind is list or kind is tuple:
            depth += 1
            if depth > MAX_NESTING_DEPTH:
                raise NestingTooDeep()
            pending: list[tuple[Any, int] | bytes] = []
            if kind is dict:
                out.append(b"{")
                for n, (key, child) in enumerate(value.items()):
                    pending.append((b"," if n else b"") + dumps(key) + b":")
                    pending.append((child, depth))
                pending.append(b"}")
            else:
                out.append(b"[")
                for n, child in enumerate(value):
                    if n:
                        pending.append(b",")
                    pending.append((child, depth))
                pending.append(b"]")
            stack.extend(reversed(pending))
        else:
            out.append(dumps(value))
    return b"".join(out)
