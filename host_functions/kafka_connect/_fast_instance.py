"""The fast path: a whole batch staged in linear memory, one Wasm call per chunk.

Per chunk of rows the host copies each input column the guest uses into the
adapter's ``$in`` memory once (Arrow buffers, straight) and calls
``run(start, end)``; outputs accumulate in the adapter's output memories and
are copied out once per batch (:meth:`FastInstance.harvest`) as the buffers
of Arrow arrays.  Host functions do not cross into Python (see
:mod:`host_functions.kafka_connect.layout`), except ``log`` and the JSON of
``get_record``/``set_record`` (:mod:`host_functions.kafka_connect.record_json`).

Failures stay per record: a guest-reported error returns from ``run`` with
the row; a trap, a timeout or a bad pointer leaves the failing row in the
control block, the outputs committed before it are harvested, the row is
failed, a fresh instance is built and the chunk resumes at the next row.
"""

from __future__ import annotations

import ctypes
import functools
import operator

import numpy as np
import pyarrow as pa
import wasmtime

from host_functions.kafka_connect import layout as A
from host_functions.kafka_connect._adapter_shim import shim_wat
from host_functions.kafka_connect.adapter import adapter_wat
from host_functions.kafka_connect.guest import GuestModule
from host_functions.kafka_connect.record_json import RecordJson
from host_functions.runtime.engine import WasmRuntime
from host_functions.runtime.memory import GuestMemory
from host_functions.runtime.sandbox import (
    Settings,
    describe_trap,
    guest_memory_at_limit,
    log_function,
    new_store,
    weak_callback,
)
from host_functions.runtime.staging import Layout
from host_functions.runtime.wasmtime_internals import direct_call

__all__ = ["FastInstance", "Harvest"]

_HEADER_DTYPE = np.dtype([("key_len", "<i4"), ("value_len", "<i4")])

#: Room left after the staged input for per-record scratch (grows on demand).
_SCRATCH_HEADROOM = 1 << 16


class Harvest:
    """The outputs an instance committed, copied out of its memories.

    ``parents`` are absolute input rows; ``offsets[c]``/``data[c]`` are the
    Arrow offsets (count + 1 entries, from 0) and bytes of each changed byte
    column (``ok``, ``ov``, ``otp``); headers come as list offsets
    (``header_offsets``), per-header lengths (``header_table``) and bytes.
    """

    def __init__(self, count: int, parents: np.ndarray, flags: np.ndarray, flags_seen: int, irregular: bool) -> None:
        self.count = count
        self.parents = parents
        self.flags = flags
        #: OR of every record's flags: which SET_* and *_NULL bits occur at all
        self.flags_seen = flags_seen
        #: a record was dropped or emitted (output rows may not be the input rows)
        self.irregular = irregular
        self.offsets: dict[str, np.ndarray] = {}
        self.data: dict[str, np.ndarray] = {}
        self.timestamps: np.ndarray | None = None
        self.header_offsets: np.ndarray | None = None
        self.header_table: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        """The bytes these outputs take in Python (their arrays)."""
        arrays = [
            self.parents,
            self.flags,
            *self.offsets.values(),
            *self.data.values(),
            *(a for a in (self.timestamps, self.header_offsets, self.header_table) if a is not None),
        ]
        return sum(a.nbytes for a in arrays)

    @classmethod
    def merge(cls, harvests: list["Harvest"]) -> "Harvest":
        """One harvest of all, in order (offsets rebased)."""
        if len(harvests) == 1:
            return harvests[0]
        first = harvests[0]
        merged = cls(
            sum(h.count for h in harvests),
            np.concatenate([h.parents for h in harvests]),
            np.concatenate([h.flags for h in harvests]),
            functools.reduce(operator.or_, (h.flags_seen for h in harvests)),
            any(h.irregular for h in harvests),
        )
        for name in first.offsets:
            merged.offsets[name] = _concat_offsets([h.offsets[name] for h in harvests])
        for name in first.data:
            merged.data[name] = np.concatenate([h.data[name] for h in harvests])
        if first.timestamps is not None:
            merged.timestamps = np.concatenate([h.timestamps for h in harvests])
        if first.header_offsets is not None:
            merged.header_offsets = _concat_offsets([h.header_offsets for h in harvests])
            merged.header_table = np.concatenate([h.header_table for h in harvests])
        return merged


def _concat_offsets(parts: list[np.ndarray]) -> np.ndarray:
    out, base = [parts[0]], int(parts[0][-1])
    for part in parts[1:]:
        out.append(part[1:] + base)
        base += int(part[-1])
    return np.concatenate(out).astype(np.int32, copy=False)  # Arrow's binary offsets are int32


class FastInstance:
    """Guest + shim + adapter in one store, with the chunk's input staged."""

    def __init__(self, rt: WasmRuntime, guest: GuestModule, settings: Settings, staged: frozenset[str]) -> None:
        engine = rt.engine
        self.store = store = new_store(engine, settings)
        self.settings = settings
        shim = wasmtime.Instance(store, rt.compile(shim_wat().encode()), [])
        shim_exports = shim.exports(store)
        linker = wasmtime.Linker(engine)
        if settings.wasi:
            linker.define_wasi()
        linker.define_instance(store, "env", shim)
        if "log" in guest.imports:
            ty = wasmtime.FuncType([wasmtime.ValType.i32()] * 3, [])
            linker.define_func("env", "log", ty, log_function(settings, weak_callback(self._read_guest)))
        guest_exports = linker.instantiate(store, guest.module).exports(store)
        self.guest_memory = guest_exports["memory"]
        self.guest_view = GuestMemory(self.guest_memory, store)
        provided = {
            ("guest", "memory"): self.guest_memory,
            ("guest", "alloc"): guest_exports["alloc"],
            ("guest", "entry"): guest_exports[guest.function_name],
            ("shim", "table"): shim_exports["table"],
        }
        if guest.has_dealloc:
            provided[("guest", "dealloc")] = guest_exports["dealloc"]
        self.memories: dict[str, GuestMemory] = {}
        self.shape = shape = guest.adapter_shape(staged)
        if shape.get_record or shape.set_record:
            record_json = RecordJson(weak_callback(self._memory), weak_callback(self._read_guest), settings)
            i32 = wasmtime.ValType.i32()
            provided[("host", "get_record")] = wasmtime.Func(
                store, wasmtime.FuncType([], [i32]), record_json.get_record
            )
            provided[("host", "set_record")] = wasmtime.Func(
                store, wasmtime.FuncType([i32, i32], []), record_json.set_record
            )
        adapter = rt.compile(adapter_wat(shape).encode())
        exports = wasmtime.Instance(store, adapter, [provided[(i.module, i.name)] for i in adapter.imports]).exports(
            store
        )
        self._call_run = direct_call(store, exports["run"])
        self.memories.update(
            (name, GuestMemory(exports[name], store, f"the adapter's ${name}"))
            for name in ("in", "ch") + A.OUTPUT_MEMORIES + tuple(A.TABLE_MEMORIES)
        )
        self.control = self.memories["in"]
        #: The row being run: it moves with every record (read by the watchdog thread).
        self.progress = self.control.i32_reader(A.C_ROW)

    # --- memory access ------------------------------------------------------

    def _memory(self, name: str) -> GuestMemory:
        return self.memories[name]

    def _read_guest(self, ptr: int, length: int) -> bytes:
        return self.guest_view.read(ptr, length)

    def word(self, offset: int) -> int:
        return self.control.i32(offset)

    # --- staging and running -----------------------------------------------

    def load(self, layout: Layout) -> None:
        """Copy the chunk's input into ``$in``; committed outputs stay until harvested."""
        needed = layout.size + min(_SCRATCH_HEADROOM, self.settings.memory_max_bytes // 4)
        control = self.control
        control.grow_to(needed, f"the staged input ({layout.size} bytes)", self.settings)
        control.zero(A.DESCRIPTORS, A.CONTROL_SIZE - A.DESCRIPTORS)
        layout.copy_parts(control)
        for offset, value in layout.words.items():
            control.set_i32(offset, _signed(value))
        control.set_i32(A.D_SCRATCH, (layout.size + 7) & ~7)
        self.progress = control.i32_reader(A.C_ROW)  # where $in is after growing

    def run(self, start: int, end: int) -> int:
        # Set here, not only by the adapter: an interrupt may come at run's
        # entry, before the adapter stores its first row.
        self.control.set_i32(A.C_ROW, start)
        self.store.set_epoch_deadline(1)
        return self._call_run(start, end)

    def status(self) -> A.Status | int:
        status = self.word(A.C_STATUS)
        return A.Status(status) if status in A.Status._value2member_map_ else status

    def needed_inputs(self) -> frozenset[str]:
        """The input columns a NEEDS_INPUT (or INPUT_UNREADABLE) stop names."""
        bits = self.word(A.C_ERR_PTR)
        return frozenset(column for column, bit in A.INPUT_BITS.items() if bits & bit)

    def error_message(self) -> str:
        at, length = self.word(A.C_ERR_PTR), self.word(A.C_ERR_LEN)
        return self.control.read(at, length).decode("utf-8", "replace")

    def out_of_memory(self) -> int | None:
        """The guest memory size when its trap looks like running out of memory, else None."""
        return guest_memory_at_limit(self.guest_memory, self.store, self.settings)

    def failure_cause(self, exc: BaseException, timed_out: bool) -> str:
        status = self.status()
        if not timed_out and status == A.Status.BAD_POINTER:
            ptr, length = self.word(A.C_ERR_PTR) & 0xFFFFFFFF, self.word(A.C_ERR_LEN) & 0xFFFFFFFF
            return f"bad pointer: ({ptr}, {length}) is outside guest memory of {self.guest_view.size} bytes"
        if not timed_out and status == A.Status.BAD_ALLOC:
            ptr, length = self.word(A.C_ERR_PTR) & 0xFFFFFFFF, self.word(A.C_ERR_LEN) & 0xFFFFFFFF
            size = self.guest_view.size
            return (
                f"bad pointer: alloc returned {ptr}, which cannot hold {length} bytes in guest memory of {size} bytes"
            )
        if not timed_out and status == A.Status.OUTPUT_FULL:
            return f"the record's output exceeds memory.max.bytes={self.settings.memory_max_bytes}"
        if not timed_out and status == A.Status.TOO_MANY_OUTPUTS:
            return self.settings.too_many_outputs()
        memory_full = guest_memory_at_limit(self.guest_memory, self.store, self.settings)
        return describe_trap(exc, timed_out=timed_out, memory_full=memory_full, settings=self.settings)

    def harvest(self) -> Harvest:
        """Copy out the committed outputs and forget them (the memories are reused)."""
        count = self.word(A.C_OUT)
        shape = self.shape
        harvest = Harvest(
            count,
            self._copy("op", 4 * count, np.int32),
            self._copy("of", count, np.uint8),
            self.word(A.C_FLAGS),
            bool(self.word(A.C_IRREGULAR)),
        )
        for column, data, offsets in (("key", "ok", "oko"), ("value", "ov", "ovo"), ("topic", "otp", "otpo")):
            if shape.modifies(column):
                harvest.offsets[data] = self._copy(offsets, 4 * (count + 1), np.int32)
                harvest.data[data] = self._copy(data, self._cursor(data), np.uint8)
        if shape.modifies_timestamp:
            harvest.timestamps = self._copy("ots", 8 * count, np.int64)
        if shape.modifies_headers:
            harvest.header_offsets = self._copy("ohc", 4 * (count + 1), np.int32)
            harvest.header_table = self._copy("oht", self._cursor("oht"), np.uint8).view(_HEADER_DTYPE)
            for name in ("ohk", "ohv"):
                harvest.data[name] = self._copy(name, self._cursor(name), np.uint8)
        self.forget_outputs()
        return harvest

    def has_outputs(self) -> bool:
        return bool(self.word(A.C_OUT) or self.word(A.C_IRREGULAR))

    def forget_outputs(self) -> None:
        self.control.zero(A.C_OUT, 4 + 4 * len(A.OUTPUT_MEMORIES))
        self.control.zero(A.C_FLAGS, 8)

    def _cursor(self, memory: str) -> int:
        return self.word(A.C_CURSORS + 4 * A.OUTPUT_MEMORIES.index(memory))

    def _copy(self, memory: str, nbytes: int, dtype) -> np.ndarray:
        """``nbytes`` from the start of an output memory, as a fresh array (the memory is reused).

        The copy lands in Arrow's memory pool, which recycles freed batches'
        pages instead of faulting fresh ones in for every batch.
        """
        buffer = pa.allocate_buffer(nbytes)
        if nbytes > 4 or (nbytes and self.memories[memory].size):
            self.memories[memory].copy_to(buffer.address, 0, nbytes)
        elif nbytes:  # the offsets table of no records, in a memory never grown: [0]
            ctypes.memset(buffer.address, 0, nbytes)
        return np.frombuffer(buffer, dtype=dtype)


def _signed(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value
