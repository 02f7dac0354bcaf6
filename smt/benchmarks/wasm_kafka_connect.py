"""Kafka Connect ABI guests beyond the hand-written to_upper: a real Rust guest, and the record JSON.

* The Rust guest of ``examples/kafka_connect_rust`` (the Kafka Connect Wasm transformer's SDK
  shape: std, serde, all ten host functions imported) doing ``to_upper``, fast path against the
  reference path on the same batches; target 5M records/s.  It is built with cargo when the Rust
  toolchain is there (``scripts/install-guest-toolchains.sh``); otherwise the row is left out,
  saying why.
* ``get_record`` (the record's JSON becomes the value) and ``get_record`` + ``set_record`` (the
  document set back), fast path against the reference path, so that a regression of the adapter's
  JSON code shows.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pyarrow as pa
import wasmtime

from smt.benchmarks._common import Comparison, kafka_connect_transform, measure_batches
from smt.benchmarks.wasm_guests import BUMP_ALLOCATOR_WAT

__all__ = ["rust_guest", "record_json"]

RUST_GUEST = Path(__file__).resolve().parents[2] / "examples" / "kafka_connect_rust"
#: Cargo's build state, shared with the test suite: a cold build takes ~30 s.
CARGO_TARGET_DIR = Path.home() / ".cache" / "spark-smt" / "cargo-target"
RUST_TARGET_RATE = 5_000_000


def _guest_wat() -> str:
    """get_record's JSON becomes the value (``to_json``), or is set back (``round_trip``)."""
    return (
        """(module
  (import "env" "get_record" (func $get_record (result i64)))
  (import "env" "set_record" (func $set_record (param i32 i32)))
  (import "env" "set_value" (func $set_value (param i32 i32)))
  """
        + BUMP_ALLOCATOR_WAT
        + """
  (func (export "to_json") (local $r i64)
    (global.set $bump (i32.const 1024))
    (local.set $r (call $get_record))
    (call $set_value (i32.wrap_i64 (i64.shr_u (local.get $r) (i64.const 32))) (i32.wrap_i64 (local.get $r))))
  (func (export "round_trip") (local $r i64)
    (global.set $bump (i32.const 1024))
    (local.set $r (call $get_record))
    (call $set_record (i32.wrap_i64 (i64.shr_u (local.get $r) (i64.const 32))) (i32.wrap_i64 (local.get $r)))))
"""
    )


def _records(values: pa.Array) -> pa.Table:
    n = len(values)
    header_type = pa.list_(pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())]))
    headers = pa.array([[{"key": "trace", "value": b"%08d" % i}] for i in range(n)], type=header_type)
    return pa.table(
        {
            "key": pa.array([b"key-%d" % i for i in range(n)], pa.binary()),
            "value": values,
            "topic": pa.array(["bench"] * n),
            "headers": headers,
        }
    )


def _compare(
    name: str,
    module_path: str,
    function: str,
    table: pa.Table,
    batch_rows: int,
    target_rate: float | None = None,
    repeat: int = 3,
) -> Comparison:
    batches = table.to_batches(max_chunksize=batch_rows)
    fast = kafka_connect_transform(module_path, "fast", function)
    reference = kafka_connect_transform(module_path, "reference", function)
    ours = measure_batches("fast path", fast, batches, table.num_rows, repeat=repeat)
    baseline = measure_batches("reference path", reference, batches, table.num_rows)
    return Comparison(name, ours, baseline, target_rate=target_rate)


def rust_guest(values: pa.Array, workdir: str, batch_rows: int) -> list[Comparison]:
    """The Rust guest's to_upper; no row (a note on stderr) when it cannot be built here."""
    from host_functions.sdk import GuestBuildError, build_cargo_guest

    try:
        module = build_cargo_guest(RUST_GUEST, workdir, target_dir=CARGO_TARGET_DIR)
    except GuestBuildError as exc:
        print(f"wasm: the Rust guest row is left out: {exc}", file=sys.stderr)
        return []
    table = pa.table({"value": values, "topic": pa.array(["bench"] * len(values))})
    return [
        _compare(
            "wasm to_upper, Rust guest importing every host function",
            str(module),
            "to_upper",
            table,
            batch_rows,
            target_rate=RUST_TARGET_RATE,
            repeat=5,
        )
    ]


def record_json(values: pa.Array, workdir: str, batch_rows: int) -> list[Comparison]:
    """get_record, and get_record + set_record, on records with a key and a header."""
    module = os.path.join(workdir, "record_json.wasm")
    with open(module, "wb") as out:
        out.write(wasmtime.wat2wasm(_guest_wat()))
    table = _records(values)
    return [
        _compare("wasm get_record (JSON to the value)", module, "to_json", table, batch_rows),
        _compare("wasm get_record + set_record round trip", module, "round_trip", table, batch_rows),
    ]
