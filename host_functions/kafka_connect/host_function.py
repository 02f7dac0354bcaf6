"""Host functions written in Python, contributed by plugins.

A plugin returns :class:`HostFunction` definitions from its
``smt_host_functions`` hook.  They are imported by guests from module
``env`` like the built-in ones; a guest that imports one runs on the
reference path, where host functions are Python calls.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

__all__ = ["HostFunction", "HostCall"]


class HostCall:
    """What a Python host function sees while a guest call runs.

    ``record`` is the current :class:`host_functions.kafka_connect.reference.RecordState`
    (key/value/header bytes as the guest sees them); ``read(ptr, len)``
    copies bytes out of guest memory, ``give(data)`` allocates in the guest
    and returns the packed ``(ptr << 32) | len``; both raise on a bad pointer.
    """

    def __init__(self, instance: Any) -> None:
        self._instance = instance

    @property
    def record(self) -> Any:
        state = self._instance.state
        for part in ("key", "value", "headers"):  # a plugin function may read any part: convert them all
            state.read(part)
        return state

    def read(self, ptr: int, length: int) -> bytes:
        return self._instance.read(ptr, length)

    def give(self, data: bytes | None) -> int:
        return self._instance.give(data)


@dataclasses.dataclass(frozen=True)
class HostFunction:
    """A host function: its import name, Wasm signature and Python callable.

    ``params`` and ``results`` are Wasm value types (``"i32"``, ``"i64"``);
    ``call(host_call, *args)`` gets a :class:`HostCall` then the Wasm
    arguments, and returns the result (or None).
    """

    name: str
    params: tuple[str, ...]
    results: tuple[str, ...]
    call: Callable[..., Any]
