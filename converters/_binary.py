"""Building an Arrow binary column from many small byte strings, fast.

Keeping one ``bytes`` object per record alive costs an allocation each, and
on a large batch those allocations cost several times the serialisation
itself.  Appending each result to one growing buffer instead reuses the same
small allocation every time and hands Arrow the finished buffers directly.
"""

from __future__ import annotations

from array import array

import numpy as np
import pyarrow as pa

__all__ = ["BinaryColumnBuilder"]


class BinaryColumnBuilder:
    """Append ``bytes`` (or ``None``) one by one; :meth:`finish` gives a ``pa.binary()`` array."""

    __slots__ = ("_data", "_offsets", "_nulls")

    def __init__(self) -> None:
        self._data = bytearray()
        self._offsets = array("i", [0])
        self._nulls: list[int] = []

    def append(self, value: bytes | None) -> None:
        if value is None:
            self._nulls.append(len(self._offsets) - 1)
        else:
            self._data += value
        self._offsets.append(len(self._data))

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def finish(self) -> pa.Array:
        length = len(self)
        validity = None
        if self._nulls:
            valid = np.ones(length, dtype=bool)
            valid[self._nulls] = False
            validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
        return pa.Array.from_buffers(
            pa.binary(),
            length,
            [validity, pa.py_buffer(self._offsets), pa.py_buffer(self._data)],
            null_count=len(self._nulls),
        )
