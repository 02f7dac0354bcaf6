"""The fast path: a whole batch staged in linear memory, one Wasm call per chunk.

Per chunk of rows the host copies each input column into the adapter's
``$in`` memory once (Arrow buffers, straight), calls ``run(start, end)``, and
reads the output columns back as Arrow arrays.  Host functions never cross
into Python (see :mod:`host_functions._adapter`).

Failures stay per record: a guest-reported error returns from ``run`` with
the row; a trap, a timeout or a bad pointer leaves the failing row in the
control block, the outputs committed before it are harvested, the row is
failed, a fresh instance is built and the chunk resumes at the next row.
"""

from __future__ import annotations

import ctypes
import struct
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import wasmtime

from host_functions import _adapter as A
from host_functions._guest import GuestModule
from host_functions._runtime import WasmRuntime
from host_functions._sandbox import Failure, Settings, describe_trap, guest_memory_at_limit, log_function, new_store

__all__ = ["FastInstance", "Layout", "Harvest"]

_OUT_DTYPE = np.dtype(
    [
        ("parent", "<i4"),
        ("key_len", "<i4"),
        ("value_len", "<i4"),
        ("topic_len", "<i4"),
        ("timestamp", "<i8"),
        ("timestamp_null", "<i4"),
        ("header_count", "<i4"),
        ("mask", "<i4"),
        ("pad", "<i4"),
    ]
)
assert _OUT_DTYPE.itemsize == A.OUT_RECORD_SIZE
_HEADER_DTYPE = np.dtype([("key_len", "<i4"), ("value_len", "<i4")])

#: Room left after the staged input for per-record scratch (grows on demand).
_SCRATCH_HEADROOM = 1 << 16
_PAGE = 1 << 16


class Layout:
    """Where each staged buffer goes in ``$in``, and the descriptor words."""

    def __init__(self) -> None:
        self.size = A.CONTROL_SIZE
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

    def place_binary(self, column: pa.Array, descriptor: int, validity: bool = True) -> None:
        """Offsets and data of a binary/string column, data in one copy."""
        _, offsets_buf, data_buf = column.buffers()[:3]
        n = len(column)
        offsets = np.frombuffer(offsets_buf, dtype=np.int32, count=n + 1, offset=column.offset * 4)
        first, last = int(offsets[0]), int(offsets[-1])
        at_offsets = self.place(offsets_buf.address + column.offset * 4, (n + 1) * 4, offsets_buf)
        data_address = data_buf.address + first if data_buf is not None else 0
        at_data = self.place(data_address, last - first, data_buf)
        self.set(descriptor, at_offsets)
        self.set(descriptor + 4, at_data - first)
        if validity and column.null_count:
            valid = column.is_valid().to_numpy(zero_copy_only=False).astype(np.uint8)
            self.set(descriptor + 8, self.place_array(valid))

    def place_fixed(self, values: np.ndarray, valid: np.ndarray | None, descriptor: int) -> None:
        self.set(descriptor, self.place_array(values))
        if valid is not None:
            self.set(descriptor + 4, self.place_array(valid.astype(np.uint8)))


class Harvest:
    """The outputs one instance committed: the record table and data regions."""

    def __init__(self, row_base: int, count: int, table: dict[str, np.ndarray], data: dict[str, bytes]) -> None:
        self.row_base = row_base
        self.count = count
        self.table = table
        self.data = data


class FastInstance:
    """Guest + shim + adapter in one store, with the chunk's input staged."""

    def __init__(self, rt: WasmRuntime, guest: GuestModule, settings: Settings) -> None:
        engine = rt.engine
        self.store = store = new_store(engine, settings)
        self.settings = settings
        shim = wasmtime.Instance(store, rt.shim, [])
        shim_exports = shim.exports(store)
        linker = wasmtime.Linker(engine)
        if settings.wasi:
            linker.define_wasi()
        linker.define_instance(store, "env", shim)
        if "log" in guest.imports:
            ty = wasmtime.FuncType([wasmtime.ValType.i32()] * 3, [])
            linker.define_func("env", "log", ty, log_function(settings, self._read_guest))
        guest_exports = linker.instantiate(store, guest.module).exports(store)
        self.guest_memory = guest_exports["memory"]
        provided = {
            ("guest", "memory"): self.guest_memory,
            ("guest", "alloc"): guest_exports["alloc"],
            ("guest", "entry"): guest_exports[guest.function_name],
            ("shim", "table"): shim_exports["table"],
        }
        if guest.has_dealloc:
            provided[("guest", "dealloc")] = guest_exports["dealloc"]
        adapter = rt.adapter(guest.adapter_shape())
        exports = wasmtime.Instance(store, adapter, [provided[(i.module, i.name)] for i in adapter.imports]).exports(store)
        self._run = exports["run"]
        self.memories = {name: exports[name] for name in ("in", "ot") + A.OUTPUT_MEMORIES}
        self._control_address = 0

    # --- memory access ------------------------------------------------------

    def _address(self, name: str) -> int:
        return ctypes.addressof(self.memories[name].data_ptr(self.store).contents)

    def _read_guest(self, ptr: int, length: int) -> bytes:
        size = self.guest_memory.data_len(self.store)
        if ptr < 0 or length < 0 or ptr + length > size:
            raise Failure(f"bad pointer: ({ptr}, {length}) is outside guest memory of {size} bytes")
        return bytes(self.guest_memory.read(self.store, ptr, ptr + length))

    def word(self, offset: int) -> int:
        return ctypes.c_int32.from_address(self._control_address + offset).value

    def progress(self) -> int:
        """The per-row sequence counter (read by the watchdog thread)."""
        return ctypes.c_int32.from_address(self._control_address + A.C_SEQ).value

    # --- staging and running -----------------------------------------------

    def load(self, layout: Layout) -> None:
        """Copy the chunk's input into ``$in`` and reset the output cursors."""
        memory = self.memories["in"]
        needed = layout.size + min(_SCRATCH_HEADROOM, self.settings.memory_max_bytes // 4)
        have = memory.data_len(self.store)
        if needed > have:
            try:
                memory.grow(self.store, (needed - have + _PAGE - 1) // _PAGE)
            except wasmtime.WasmtimeError as exc:
                raise Failure(
                    f"the staged input ({layout.size} bytes) exceeds memory.max.bytes="
                    f"{self.settings.memory_max_bytes}"
                ) from exc
        base = self._address("in")
        ctypes.memset(base, 0, A.CONTROL_SIZE)
        for position, address, nbytes in layout.parts:
            ctypes.memmove(base + position, address, nbytes)
        control = (ctypes.c_char * A.CONTROL_SIZE).from_address(base)
        for offset, value in layout.words.items():
            struct.pack_into("<i", control, offset, _signed(value))
        struct.pack_into("<i", control, A.D_SCRATCH, (layout.size + 7) & ~7)
        self._control_address = base

    def run(self, start: int, end: int) -> int:
        self.store.set_epoch_deadline(1)
        return self._run(self.store, start, end)

    def status(self) -> int:
        return self.word(A.C_STATUS)

    def error_message(self) -> str:
        at, length = self.word(A.C_ERR_PTR), self.word(A.C_ERR_LEN)
        return ctypes.string_at(self._control_address + at, length).decode("utf-8", "replace")

    def failure_cause(self, exc: BaseException, timed_out: bool) -> str:
        status = self.status()
        if not timed_out and status == 3:
            ptr, length = self.word(A.C_ERR_PTR) & 0xFFFFFFFF, self.word(A.C_ERR_LEN) & 0xFFFFFFFF
            size = self.guest_memory.data_len(self.store)
            return f"bad pointer: ({ptr}, {length}) is outside guest memory of {size} bytes"
        if not timed_out and status == 4:
            ptr, length = self.word(A.C_ERR_PTR) & 0xFFFFFFFF, self.word(A.C_ERR_LEN) & 0xFFFFFFFF
            size = self.guest_memory.data_len(self.store)
            return (
                f"bad pointer: alloc returned {ptr}, which cannot hold {length} bytes "
                f"in guest memory of {size} bytes"
            )
        if not timed_out and status == 5:
            return f"the record's output exceeds memory.max.bytes={self.settings.memory_max_bytes}"
        memory_full = guest_memory_at_limit(self.guest_memory, self.store, self.settings)
        return describe_trap(exc, timed_out=timed_out, memory_full=memory_full, settings=self.settings)

    def harvest(self, row_base: int, wanted: tuple[str, ...], fields: tuple[str, ...]) -> Harvest:
        """Copy out what was committed so far (only ``fields`` of the record table) and reset."""
        count = self.word(A.C_OUT)
        # a view of the table in linear memory, valid until the next call: copy the fields out now
        raw = (ctypes.c_char * (count * A.OUT_RECORD_SIZE)).from_address(self._address("ot"))
        view = np.frombuffer(raw, dtype=_OUT_DTYPE, count=count)
        table = {name: view[name].copy() for name in fields}
        data = {}
        for index, name in enumerate(A.OUTPUT_MEMORIES):
            if name in wanted:
                length = self.word(A.C_CURSORS + 4 * index)
                data[name] = ctypes.string_at(self._address(name), length) if length else b""
        ctypes.memset(self._control_address + A.C_OUT, 0, 4 + 4 * len(A.OUTPUT_MEMORIES))
        return Harvest(row_base, count, table, data)


def _signed(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


# --- building output columns -------------------------------------------------


def binary_column(lengths: np.ndarray, data: bytes, type: pa.DataType) -> pa.Array:
    """An Arrow binary/string array from per-row lengths (-1 = null) and concatenated bytes."""
    n = len(lengths)
    valid = lengths >= 0
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.where(valid, lengths, 0), out=offsets[1:])
    null_count = int(n - valid.sum())
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if null_count else None
    return pa.Array.from_buffers(type, n, [bitmap, pa.py_buffer(offsets), pa.py_buffer(data)], null_count)


def timestamp_column(millis: np.ndarray, null: np.ndarray) -> pa.Array:
    mask = null.astype(bool)
    micros = pa.array(millis * 1000, type=pa.int64(), mask=mask if mask.any() else None)
    return micros.cast(pa.timestamp("us"))


def headers_column(counts: np.ndarray, key_array: pa.Array, table: np.ndarray, values: bytes) -> pa.Array:
    offsets = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    value_array = binary_column(table["value_len"], values, pa.binary())
    structs = pa.StructArray.from_arrays([key_array, value_array], names=["key", "value"])
    return pa.ListArray.from_arrays(pa.array(offsets), structs)


def arrow_millis(column: Any, length: int, dtype: str) -> tuple[np.ndarray, np.ndarray | None]:
    """A fixed-width column as (values with nulls as 0, validity or None)."""
    if isinstance(column, (pa.Array, pa.ChunkedArray)):
        array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        if pa.types.is_timestamp(array.type):
            array = pc.divide(array.cast(pa.timestamp("us")).cast(pa.int64()), 1000)
        valid = None
        if array.null_count:
            valid = array.is_valid().to_numpy(zero_copy_only=False)
            array = array.fill_null(0)
        return array.to_numpy(zero_copy_only=False).astype(dtype), valid
    values = list(column) if column is not None else [None] * length
    if values.count(None) == length:
        return np.zeros(length, dtype=dtype), np.zeros(length, dtype=bool)
    valid_list = [v is not None for v in values]
    array = np.array([0 if v is None else v for v in values], dtype=dtype)
    return array, (None if all(valid_list) else np.array(valid_list, dtype=bool))


Fail = Callable[[int, str], None]
