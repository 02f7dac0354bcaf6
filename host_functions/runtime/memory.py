"""Guest linear memory, as the host reads, writes and grows it: :class:`GuestMemory`.

Every ABI copies batches in and out of Wasm memories; doing it through one
view means one bounds check and one error message ("bad pointer: (ptr, len)
is outside guest memory of N bytes") instead of raw ``ctypes`` at each site.
Copies stay bulk: one ``memmove``/``memset``/``string_at`` per buffer, never a
Python step per byte or per record.

A view keeps the memory's base address and the largest size it has seen:
a linear memory never shrinks, so an access inside that size needs no call
into the store (a control word read costs a Python comparison, not an FFI
call); one past it asks the store for the size again.  Keeping the address
is sound because wasmtime reserves a 32-bit memory's whole address range up
front, so a memory does not move when it grows (the watchdog thread relies on
it too: :meth:`GuestMemory.i32_reader` reads without touching the store).
"""

from __future__ import annotations

import ctypes
from typing import Any, Callable

import numpy as np
import wasmtime

from host_functions.runtime.sandbox import Failure

__all__ = ["GuestMemory", "PAGE", "grow_to"]

#: A Wasm page.
PAGE = 1 << 16


class GuestMemory:
    """One linear memory of one instance: bounds-checked reads and writes, growth under ``memory.max.bytes``.

    ``store`` is the instance's store, or the ``Caller`` of the host call the
    view is made for (a view made from a caller must not outlive that call).
    ``label`` names the memory in errors ("guest memory", "the adapter's $in").
    """

    __slots__ = ("memory", "store", "label", "_base", "_known_size")

    def __init__(self, memory: wasmtime.Memory, store: Any, label: str = "guest memory") -> None:
        self.memory, self.store, self.label = memory, store, label
        self._base = ctypes.addressof(memory.data_ptr(store).contents)
        self._known_size = memory.data_len(store)

    # --- where it is ---------------------------------------------------------------

    @property
    def size(self) -> int:
        """Its size in bytes now."""
        self._known_size = self.memory.data_len(self.store)
        return self._known_size

    def address(self) -> int:
        """The address of its byte 0 in this process (for bulk copies the caller has bounds-checked)."""
        return self._base

    def contains(self, at: int, length: int) -> bool:
        """Whether ``[at, at + length)`` lies inside the memory."""
        return 0 <= at and 0 <= length and (at + length <= self._known_size or at + length <= self.size)

    def check(self, at: int, length: int) -> int:
        """The address of byte ``at``, once ``[at, at + length)`` is known to lie inside the memory.

        Raises :class:`Failure` naming the range and the memory's size when it does not.
        """
        if not self.contains(at, length):
            raise Failure(f"bad pointer: ({at}, {length}) is outside {self.label} of {self._known_size} bytes")
        return self._base + at

    # --- bytes -----------------------------------------------------------------------

    def read(self, at: int, length: int) -> bytes:
        """A copy of ``length`` bytes at ``at``; raises :class:`Failure` outside the memory."""
        return ctypes.string_at(self.check(at, length), length) if length else b""

    def write(self, at: int, data: Any) -> None:
        """Copy ``data`` (bytes, or any contiguous buffer: a memoryview, a NumPy array) to ``at``, in one copy."""
        if isinstance(data, bytes):
            nbytes, source = len(data), data
        else:
            array = np.frombuffer(data, dtype=np.uint8)  # a view: the buffer is copied once, from where it is
            nbytes, source = array.nbytes, array.ctypes.data
        target = self.check(at, nbytes)
        if nbytes:
            ctypes.memmove(target, source, nbytes)

    def write_from(self, at: int, source_address: int, nbytes: int) -> None:
        """Copy ``nbytes`` from a host buffer at ``source_address`` (an Arrow or NumPy buffer) to ``at``."""
        if nbytes:
            ctypes.memmove(self.check(at, nbytes), source_address, nbytes)

    def copy_to(self, target_address: int, at: int, nbytes: int) -> None:
        """Copy ``nbytes`` at ``at`` into a host buffer at ``target_address``."""
        if nbytes:
            ctypes.memmove(target_address, self.check(at, nbytes), nbytes)

    def zero(self, at: int, length: int) -> None:
        """Set ``length`` bytes at ``at`` to 0."""
        if length:
            ctypes.memset(self.check(at, length), 0, length)

    # --- words (little-endian, as Wasm stores them) ------------------------------------

    def i32(self, at: int) -> int:
        return ctypes.c_int32.from_address(self.check(at, 4)).value

    def set_i32(self, at: int, value: int) -> None:
        ctypes.c_int32.from_address(self.check(at, 4)).value = value

    def set_i64(self, at: int, value: int) -> None:
        ctypes.c_int64.from_address(self.check(at, 8)).value = value

    def i32_reader(self, at: int) -> Callable[[], int]:
        """A function reading the i32 at ``at`` without touching the store (for the watchdog thread).

        Valid while the memory lives and is not grown from the host past its
        reservation: see the module's docstring.
        """
        word = ctypes.c_int32.from_address(self.check(at, 4))
        return lambda: word.value

    # --- growth -----------------------------------------------------------------------

    def grow_to(self, size: int, what: str = "", settings: Any = None) -> None:
        """Grow to hold ``size`` bytes; past ``memory.max.bytes`` (``settings``') a :class:`Failure` names ``what``.

        Without ``settings`` (a store with no limit) a failure to grow is wasmtime's error.
        """
        if settings is None:
            have = self.size
            if size > have:
                self.memory.grow(self.store, (size - have + PAGE - 1) // PAGE)
        else:
            grow_to(self.memory, self.store, size, what, settings)
        self._base = ctypes.addressof(self.memory.data_ptr(self.store).contents)
        self._known_size = self.memory.data_len(self.store)


def grow_to(memory: wasmtime.Memory, store: wasmtime.Store, size: int, what: str, settings: Any) -> None:
    """Grow ``memory`` to hold ``size`` bytes; past ``memory.max.bytes`` a :class:`Failure` names ``what``."""
    have = memory.data_len(store)
    if size <= have:
        return
    try:
        memory.grow(store, (size - have + PAGE - 1) // PAGE)
    except wasmtime.WasmtimeError as exc:
        raise Failure(f"{what} exceeds memory.max.bytes={settings.memory_max_bytes}") from exc
