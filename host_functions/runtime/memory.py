"""Guest linear memory, as the host reads, writes and grows it."""

from __future__ import annotations

from typing import Any

import wasmtime

from host_functions.runtime.sandbox import Failure

__all__ = ["grow_to", "PAGE"]

#: A Wasm page.
PAGE = 1 << 16


def grow_to(memory: wasmtime.Memory, store: wasmtime.Store, size: int, what: str, settings: Any) -> None:
    """Grow ``memory`` to hold ``size`` bytes; past ``memory.max.bytes`` a :class:`Failure` names ``what``."""
    have = memory.data_len(store)
    if size <= have:
        return
    try:
        memory.grow(store, (size - have + PAGE - 1) // PAGE)
    except wasmtime.WasmtimeError as exc:
        raise Failure(f"{what} exceeds memory.max.bytes={settings.memory_max_bytes}") from exc
