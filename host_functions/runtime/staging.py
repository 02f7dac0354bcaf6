"""Input staging: a batch's Arrow buffers placed, then copied in bulk, into a guest-side input memory.

The Kafka Connect and Redpanda adapters both read their input from an
``$in`` memory: a control block, then each staged buffer (8-byte aligned),
with descriptor words in the control block saying where each one went.
:class:`Layout` plans the positions and keeps the source buffers alive until
:meth:`Layout.copy_parts` copies them, one ``memmove`` per buffer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from host_functions.runtime.memory import GuestMemory

__all__ = ["Layout"]


class Layout:
    """Where each staged buffer goes in ``$in``, and the descriptor words.

    Staging starts after the ABI's control block (``control_size`` bytes).
    """

    def __init__(self, control_size: int) -> None:
        self.size = control_size
        self.parts: list[tuple[int, int, int]] = []  # (position, source address, bytes)
        self.words: dict[int, int] = {}
        self._keep: list[Any] = []  # buffers whose addresses are in parts

    def place(self, address: int, nbytes: int, owner: Any) -> int:
        position = (self.size + 7) & ~7
        if nbytes:
            self.parts.append((position, address, nbytes))
        self._keep.append(owner)
        self.size = position + nbytes
        return position

    def place_array(self, array: np.ndarray) -> int:
        array = np.ascontiguousarray(array)
        return self.place(array.ctypes.data, array.nbytes, array)

    def set(self, offset: int, value: int) -> None:
        self.words[offset] = value

    def copy_parts(self, memory: GuestMemory, at: int = 0) -> None:
        """Copy every staged buffer to its position (after ``at``) in ``memory`` (an ``$in``), one copy each."""
        for position, address, nbytes in self.parts:
            memory.write_from(at + position, address, nbytes)

    def place_binary(
        self,
        column: pa.Array,
        descriptor: int,
        validity: bool = True,
        unreadable: list[int] | None = None,
        unreadable_mark: int = 2,
    ) -> None:
        """Offsets and data of a binary/string column, data in one copy.

        The validity bytes are 1 (bytes), 0 (null) or ``unreadable_mark`` for the ``unreadable`` rows
        (their converter failed: the Kafka Connect adapter's getter fails the record, see its
        ``VALIDITY_UNREADABLE``).
        """
        _, offsets_buf, data_buf = column.buffers()[:3]
        n = len(column)
        offsets = np.frombuffer(offsets_buf, dtype=np.int32, count=n + 1, offset=column.offset * 4)
        first, last = int(offsets[0]), int(offsets[-1])
        at_offsets = self.place(offsets_buf.address + column.offset * 4, (n + 1) * 4, offsets_buf)
        data_address = data_buf.address + first if data_buf is not None else 0
        at_data = self.place(data_address, last - first, data_buf)
        self.set(descriptor, at_offsets)
        self.set(descriptor + 4, at_data - first)
        if validity and (column.null_count or unreadable):
            valid = column.is_valid().to_numpy(zero_copy_only=False).astype(np.uint8)
            if unreadable:
                valid[unreadable] = unreadable_mark
            self.set(descriptor + 8, self.place_array(valid))

    def place_fixed(self, values: np.ndarray, valid: np.ndarray | None, descriptor: int) -> None:
        self.set(descriptor, self.place_array(values))
        if valid is not None:
            self.set(descriptor + 4, self.place_array(valid.astype(np.uint8)))
