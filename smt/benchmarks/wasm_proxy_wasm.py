"""proxy-wasm Kafka filter throughput: our host vs a naive host, same filter, same records.

The filter is the Rust to_upper example (``examples/wasm/proxy-wasm/to_upper``,
built with the ``proxy-wasm`` crate 0.2.5, so ``cargo`` and the
``wasm32-wasip1`` target are needed).  Ours: the ``wasm`` transform (one
Produce request per topic-partition and batch, records written and read in
Wasm, one call into the filter per request).  The naive host: a Produce
request per record, built and parsed in Python, as a first implementation
that forwards each record as the client sent it would.
Target: ours >= 1M records/s standalone.
"""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path

import crc32c
import pyarrow as pa
import wasmtime

from smt.benchmarks._common import (
    Comparison,
    measure,
    measure_batches,
    run_batches,
    value_batches,
    wasm_transform,
    zigzag_varint,
)

__all__ = ["standalone", "TARGET_RECORDS_PER_SECOND"]

TARGET_RECORDS_PER_SECOND = 1_000_000
_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "wasm" / "proxy-wasm" / "to_upper" / "rust"
_OK, _UNIMPLEMENTED, _DOWNSTREAM_DATA = 0, 12, 2


def standalone(values: pa.Array, batch_rows: int) -> Comparison:
    """to_upper over ``values`` in batches of ``batch_rows``: our host vs the naive host."""
    from host_functions.redpanda.build import build_rust_guest
    from smt.maven import cache_dir

    with tempfile.TemporaryDirectory(prefix="smt-bench-proxy-wasm-") as workdir:
        # a shared Cargo target folder: the SDK compiles once per machine, not once per run
        module_path = build_rust_guest(_EXAMPLE, workdir, cache_dir() / "cargo-target")
        count = len(values)
        batches = value_batches(values, batch_rows)
        transform = wasm_transform("upper", {"module.path": str(module_path)})

        naive = _NaiveHost(module_path.read_bytes())
        ours_measured = measure_batches("ours (a call per Produce request)", transform, batches, count, repeat=3)
        naive_values = values.slice(0, max(1, count // 20)).to_pylist()  # it is slow: a part, scaled
        naive_measured = measure(
            "naive host (a request per record, Python)", len(naive_values), lambda: naive.run(naive_values)
        )
        (ours_out,) = run_batches(transform, value_batches(values.slice(0, len(naive_values)), len(naive_values)))
        if list(ours_out.value) != naive.run(naive_values):
            raise RuntimeError("our host and the naive host disagree on the filter's output")
        transform.close()
    name = "proxy-wasm to_upper (Rust SDK), standalone"
    return Comparison(name, ours_measured, naive_measured, target_rate=TARGET_RECORDS_PER_SECOND)


class _NaiveHost:
    """The filter with Python host functions, fed one Produce request per record."""

    def __init__(self, module_bytes: bytes) -> None:
        engine = wasmtime.Engine()
        self.store = wasmtime.Store(engine)
        self.store.set_wasi(wasmtime.WasiConfig())
        module = wasmtime.Module(engine, module_bytes)
        linker = wasmtime.Linker(engine)
        linker.define_wasi()
        served = {"proxy_get_buffer_bytes": self._get_buffer_bytes, "proxy_set_buffer_bytes": self._set_buffer_bytes}
        for item in module.imports:
            if item.module == "env":
                linker.define_func("env", item.name, item.type, served.get(item.name, lambda *_: _UNIMPLEMENTED))
        self.exports = linker.instantiate(self.store, module).exports(self.store)
        self.memory = self.exports["memory"]
        self.buffer = b""
        self.exports["_initialize"](self.store)
        self.exports["proxy_on_context_create"](self.store, 1, 0)
        self.exports["proxy_on_vm_start"](self.store, 1, 0)
        self.exports["proxy_on_configure"](self.store, 1, 0)
        self.exports["proxy_on_context_create"](self.store, 2, 1)
        self.exports["proxy_on_new_connection"](self.store, 2)

    def run(self, values: list[bytes]) -> list[bytes]:
        out = []
        for correlation_id, value in enumerate(values):
            self.buffer = _request(correlation_id, value)
            self.exports["proxy_on_downstream_data"](self.store, 2, len(self.buffer), 0)
            out.append(_value_of(self.buffer))
        return out

    def _get_buffer_bytes(self, buffer_id: int, start: int, size: int, pointer_out: int, size_out: int) -> int:
        data = self.buffer[start : start + (size & 0xFFFFFFFF)]
        address = self.exports["proxy_on_memory_allocate"](self.store, len(data))
        self.memory.write(self.store, data, address)
        self.memory.write(self.store, struct.pack("<I", address), pointer_out)
        self.memory.write(self.store, struct.pack("<I", len(data)), size_out)
        return _OK

    def _set_buffer_bytes(self, buffer_id: int, start: int, size: int, pointer: int, length: int) -> int:
        self.buffer = bytes(self.memory.read(self.store, pointer, pointer + length))
        return _OK


def _request(correlation_id: int, value: bytes) -> bytes:
    """A Produce request v8 with one record (null key, no headers, timestamp 0)."""
    body = b"\x00\x00\x00" + zigzag_varint(-1) + zigzag_varint(len(value)) + value + b"\x00"
    records = zigzag_varint(len(body)) + body
    rest = struct.pack(">hiqqqhii", 0, 0, 0, 0, -1, -1, -1, 1) + records
    batch = struct.pack(">qiib", 0, len(rest) + 9, -1, 2) + struct.pack(">I", crc32c.crc32c(rest)) + rest
    request = (
        struct.pack(">hhih", 0, 8, correlation_id, 5)
        + b"bench"
        + struct.pack(">hhii", -1, -1, 30000, 1)
        + struct.pack(">h", 5)
        + b"bench"
        + struct.pack(">iii", 1, 0, len(batch))
        + batch
    )
    return struct.pack(">i", len(request)) + request


def _value_of(frame: bytes) -> bytes:
    """The value of the one record of a request built by :func:`_request` (same sizes: to_upper keeps them)."""
    at = 4 + 10 + 5 + 2 + 2 + 4 + 4 + 2 + 5 + 4 + 4 + 4 + 61
    at += 1 + 3 + 1  # record length (one byte here), attributes, deltas, null key
    length = frame[at] >> 1
    return frame[at + 1 : at + 1 + length]
