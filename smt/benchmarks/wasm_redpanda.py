"""Redpanda Data Transforms guest throughput: our host vs a naive host, same guest, same records.

The guest is the Rust to_upper example (``examples/wasm/redpanda/to_upper``,
built with the official SDK, so ``cargo`` and the ``wasm32-wasip1`` target
are needed).  Ours: the ``wasm`` transform (record bodies staged per batch,
``read_next_record``/``write_record`` served in Wasm, one Python call per
batch).  The naive host: every host function a Python call, as a first
implementation would write it (``_start`` on a thread blocking in
``read_batch_header``, bodies encoded and decoded per record).
Target: ours >= 1M records/s standalone.
"""

from __future__ import annotations

import queue
import struct
import tempfile
import threading
from pathlib import Path

import pyarrow as pa
import wasmtime

from smt.benchmarks._common import (
    Comparison,
    measure,
    measure_batches,
    value_batches,
    wasm_transform,
    zigzag_varint,
)

__all__ = ["standalone", "TARGET_RECORDS_PER_SECOND"]

TARGET_RECORDS_PER_SECOND = 1_000_000
_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "wasm" / "redpanda" / "to_upper" / "rust"


def standalone(values: pa.Array, batch_rows: int) -> Comparison:
    """to_upper over ``values`` in batches of ``batch_rows``: our host vs the naive host."""
    from host_functions.redpanda.build import build_rust_guest

    with tempfile.TemporaryDirectory(prefix="smt-bench-redpanda-") as workdir:
        module_path = build_rust_guest(_EXAMPLE, workdir)
        count = len(values)
        batches = value_batches(values, batch_rows)
        transform = wasm_transform("upper", {"module.path": str(module_path)})

        naive = _NaiveHost(module_path.read_bytes())
        ours_measured = measure_batches("ours (per batch)", transform, batches, count, repeat=3)
        naive_measured = measure("naive host (Python per call)", count, lambda: naive.run(values))
        transform.close()
        naive.close()
    name = "Redpanda to_upper (Rust SDK), standalone"
    return Comparison(name, ours_measured, naive_measured, target_rate=TARGET_RECORDS_PER_SECOND)


class _NaiveHost:
    """The guest's ``_start`` on a thread; each host function a Python callback."""

    def __init__(self, module_bytes: bytes) -> None:
        engine = wasmtime.Engine()
        self.store = wasmtime.Store(engine)
        self.store.set_wasi(wasmtime.WasiConfig())
        linker = wasmtime.Linker(engine)
        linker.define_wasi()
        i32 = wasmtime.ValType.i32()
        functions = {
            "check_abi_version_2": ([], [], lambda: None),
            "read_batch_header": ([i32] * 10, [i32], self._read_batch_header),
            "read_next_record": ([i32] * 5, [i32], self._read_next_record),
            "write_record": ([i32] * 2, [i32], self._write_record),
        }
        for name, (params, results, call) in functions.items():
            linker.define_func("redpanda_transform", name, wasmtime.FuncType(params, results), call)
        instance = linker.instantiate(self.store, wasmtime.Module(engine, module_bytes))
        self.memory = instance.exports(self.store)["memory"]
        self.batches: queue.SimpleQueue = queue.SimpleQueue()
        self.done: queue.SimpleQueue = queue.SimpleQueue()
        self.pending: list[bytes] = []
        self.outputs: list[bytes] = []
        start = instance.exports(self.store)["_start"]
        self.thread = threading.Thread(target=self._main, args=(start,), daemon=True)
        self.thread.start()
        self.done.get()

    def _main(self, start) -> None:
        try:
            start(self.store)
        except Exception:  # stopped
            pass

    def run(self, values: pa.Array) -> list[bytes]:
        bodies = [b"\x01" + zigzag_varint(len(v)) + v + b"\x00" for v in values.to_pylist()]
        self.batches.put(bodies)
        return self.done.get()

    def close(self) -> None:
        self.batches.put(None)
        self.thread.join(timeout=5)

    def _read_batch_header(self, *pointers: int) -> int:
        self.done.put(self.outputs)  # the batch's outputs (the first call: none, the guest is ready)
        bodies = self.batches.get()
        if bodies is None:
            raise RuntimeError("stopped")
        self.pending, self.outputs = list(reversed(bodies)), []
        self.memory.write(self.store, struct.pack("<i", len(bodies)), pointers[1])
        return max(len(b) for b in bodies)

    def _read_next_record(self, attributes: int, timestamp: int, offset: int, buffer: int, length: int) -> int:
        body = self.pending.pop()
        self.memory.write(self.store, body, buffer)
        return len(body)

    def _write_record(self, buffer: int, length: int) -> int:
        self.outputs.append(bytes(self.memory.read(self.store, buffer, buffer + length)))
        return length
