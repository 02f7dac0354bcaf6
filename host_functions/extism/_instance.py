"""One plug-in instance: the kernel and the plug-in in one bounded store, and the batch driver.

The kernel (``kernel.wat``) is instantiated first; the plug-in links against its
exports as ``extism:host/env`` plus the Python host functions it imports, then the
kernel's table gets the plug-in's export, so ``smt_run`` calls it once per record
inside Wasm.  Inputs are staged in the kernel's ``io`` memory per chunk of rows; each
record's output (or error) is appended there and read back once per run.

Never reused after a trap: the runner replaces it.  Variables (``var_set``) and the
plug-in's own globals persist across calls and batches while it lives.
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Callable, Mapping

import numpy as np
import wasmtime

from host_functions.extism._host_env import func_type, host_env_functions, log_level_for
from host_functions.extism._plugin import ENV_MODULE, HOST_ENV_FUNCTIONS, USER_FUNCTIONS, USER_MODULE, PluginModule
from host_functions.runtime.engine import WasmRuntime
from host_functions.runtime.memory import GuestMemory
from host_functions.runtime.sandbox import Failure, Settings, guest_memory_at_limit, new_store

__all__ = ["PluginInstance", "kernel_wat", "OUTPUT", "ERROR", "BAD_OUTPUT", "OUTPUT_FULL", "INPUT_TOO_BIG"]

#: Output entry kinds (see kernel.wat).
OUTPUT, ERROR, BAD_OUTPUT = 0, 1, 2
#: Driver status after smt_run (see kernel.wat): all rows run, output area full, input too big.
DONE, OUTPUT_FULL, INPUT_TOO_BIG = 0, 2, 3

_C_ROW, _C_STATUS, _C_TABLE, _C_DATA, _C_OUT_START, _C_OUT_CURSOR, _C_OUT_COUNT, _C_PENDING_RC = range(0, 32, 4)
_CONTROL_BYTES = 64


def kernel_wat() -> str:
    """The kernel's WAT source, shipped beside this module."""
    return resources.files("host_functions.extism").joinpath("kernel.wat").read_text()


class PluginInstance:
    """A kernel and a plug-in instance in one store (see the module docstring)."""

    def __init__(
        self,
        rt: WasmRuntime,
        plugin: PluginModule,
        settings: Settings,
        user_functions: Callable[["PluginInstance"], Mapping[str, Callable[..., Any]]] | None = None,
    ) -> None:
        self.settings = settings
        self.variables: dict[bytes, bytes] = {}
        self.store = store = new_store(rt.engine, settings)
        # Never closed at interpreter exit (atexit, weakref.finalize): closing a WASI store then
        # aborts the process in wasmtime's worker threads about one exit in two; dropped, it does not.
        self._kernel = wasmtime.Instance(store, rt.compile(kernel_wat().encode()), [])
        kernel = self._kernel.exports(store)
        self.heap: wasmtime.Memory = kernel["memory"]
        self.io: wasmtime.Memory = kernel["io"]
        self.entries: wasmtime.Memory = kernel["entries"]
        self._alloc, self._free, self._length = kernel["alloc"], kernel["free"], kernel["length"]
        self._run, self._commit = kernel["smt_run"], kernel["smt_commit"]
        kernel["log_level"].set_value(store, wasmtime.Val.i32(log_level_for(settings.logger)))
        linker = wasmtime.Linker(rt.engine)
        if plugin.uses_wasi:
            linker.define_wasi()
        linker.define_instance(store, ENV_MODULE, self._kernel)
        for name, function in host_env_functions(self, plugin.env_imports).items():
            linker.define_func(ENV_MODULE, name, func_type(*HOST_ENV_FUNCTIONS[name]), function)
        served = user_functions(self) if user_functions is not None else {}
        for import_name, name in plugin.user_imports:
            linker.define_func(USER_MODULE, import_name, func_type(*USER_FUNCTIONS[name]), served[name])
        instance = linker.instantiate(store, plugin.module)
        exports = instance.exports(store)
        self.plugin_memory = exports["memory"] if isinstance(exports.get("memory"), wasmtime.Memory) else None
        kernel["entry"].set(store, 0, exports[plugin.function_name])
        self._returns_rc = int(plugin.returns_rc)
        self._io = GuestMemory(self.io, store, "the kernel's io memory")
        self._entries = GuestMemory(self.entries, store, "the kernel's entries memory")
        if plugin.initializer is not None:
            exports[plugin.initializer](store)

    # --- kernel memory, for the Python host functions --------------------------------

    def read_block(self, handle: int) -> bytes:
        """The bytes of a kernel block; a handle that is not a live block fails the record."""
        if handle == 0:
            return b""
        length = self._length(self.store, handle)
        if length == 0:
            raise Failure(f"bad handle: {handle} is not a block of kernel memory")
        return bytes(self.heap.read(self.store, handle, handle + length))

    def give(self, data: bytes) -> int:
        """A new kernel block holding ``data`` (its handle; 0 for empty data, as Extism's ``alloc(0)``)."""
        if not data:
            return 0
        handle = self._alloc(self.store, len(data))
        if handle == 0:
            raise Failure(
                f"out of memory: {len(data)} bytes do not fit in kernel memory "
                f"(memory.max.bytes={self.settings.memory_max_bytes})"
            )
        self.heap.write(self.store, data, handle)
        return handle

    def free(self, handle: int) -> None:
        self._free(self.store, handle)

    # --- the driver --------------------------------------------------------------------

    def stage(self, documents: list[bytes]) -> None:
        """Write a chunk's input documents into ``io``; :class:`Failure` when they do not fit."""
        data = b"".join(documents)
        offsets = np.zeros(len(documents) + 1, dtype="<i4")
        np.cumsum([len(d) for d in documents], out=offsets[1:])
        table = _CONTROL_BYTES
        start = table + offsets.nbytes
        out_start = (start + len(data) + 7) & ~7
        self._ensure_io(out_start + 4096)
        self._io.write(table, offsets)
        self._io.write(start, data)
        for at, value in (
            (_C_TABLE, table),
            (_C_DATA, start),
            (_C_OUT_START, out_start),
            (_C_OUT_CURSOR, out_start),
            (_C_OUT_COUNT, 0),
            (_C_ROW, 0),
        ):
            self._io.set_i32(at, value)

    def run(self, start: int, stop: int) -> tuple[int, int]:
        """Run chunk rows [start, stop): ``(row reached, status)``; raises on a trap or host failure."""
        self.store.set_epoch_deadline(1)
        reached = self._run(self.store, start, stop, self._returns_rc)
        return reached, self._word(_C_STATUS)

    def commit_pending(self, row: int) -> bool:
        """Commit the result the driver could not append (the output area was full); False if it never fits."""
        return bool(self._commit(self.store, row, self._word(_C_PENDING_RC)))

    def progress(self) -> int:
        """The row being run (read by the watchdog thread, and by the host functions)."""
        return self._word(_C_ROW)

    def harvest(self) -> tuple[np.ndarray, bytes]:
        """The results committed since the last harvest, which are then forgotten: a table of
        ``(chunk row, return code, kind, length)`` per record, and their bytes, comma-separated."""
        start, cursor, count = self._word(_C_OUT_START), self._word(_C_OUT_CURSOR), self._word(_C_OUT_COUNT)
        table = np.frombuffer(self._entries.read(0, 16 * count), dtype="<i4").reshape(count, 4)
        data = self._io.read(start, cursor - start)
        self._set_word(_C_OUT_CURSOR, start)
        self._set_word(_C_OUT_COUNT, 0)
        return table, data

    def memory_at_limit(self) -> int | None:
        """The size of a memory (plug-in's or kernel's) that looks exhausted, else None."""
        for memory in (self.plugin_memory, self.heap):
            if memory is not None:
                size = guest_memory_at_limit(memory, self.store, self.settings)
                if size:
                    return size
        return None

    def _ensure_io(self, size: int) -> None:
        try:
            self._io.grow_to(size, "the chunk's input", self.settings)
        except Failure as exc:
            raise Failure(
                f"the chunk's input ({size} bytes) does not fit in memory.max.bytes={self.settings.memory_max_bytes}"
            ) from exc

    def _word(self, offset: int) -> int:
        return self._io.i32(offset)

    def _set_word(self, offset: int, value: int) -> None:
        self._io.set_i32(offset, value)
