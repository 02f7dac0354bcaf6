"""The hand-written Kafka Connect ABI guests of the Wasm benchmarks, as WAT.

:mod:`smt.benchmarks.wasm` runs ``to_upper``; :mod:`smt.benchmarks.wasm_kafka_connect`
builds its record-JSON guest on the same bump allocator; the Kafka and pipeline
benchmarks and some tests reuse ``to_upper``.
"""

from __future__ import annotations

__all__ = ["BUMP_ALLOCATOR_WAT", "TO_UPPER_WAT"]

#: A guest's memory with a bump allocator (``$bump`` is reset per record by the entry functions).
BUMP_ALLOCATOR_WAT = """(memory (export "memory") 1)
  (global $bump (mut i32) (i32.const 1024))
  (func (export "alloc") (param $n i32) (result i32)
    (local $p i32) (local $end i32) (local $have i32)
    (local.set $p (global.get $bump))
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $have (i32.shl (memory.size) (i32.const 16)))
    (if (i32.gt_u (local.get $end) (local.get $have))
      (then (drop (memory.grow (i32.shr_u (i32.add (i32.sub (local.get $end) (local.get $have)) (i32.const 65535)) (i32.const 16))))))
    (global.set $bump (local.get $end))
    (local.get $p))
  (func (export "dealloc") (param i32 i32))"""

#: to_upper over the value, with a bump allocator reset per record.
TO_UPPER_WAT = (
    """(module
  (import "env" "get_value" (func $get_value (result i64)))
  (import "env" "set_value" (func $set_value (param i32 i32)))
  """
    + BUMP_ALLOCATOR_WAT
    + """
  ;; upper-cases 8 bytes at a time (SWAR), as an optimizing compiler would vectorize it
  (func $upper8 (param $x i64) (result i64)
    (local $low7 i64) (local $lower i64)
    (local.set $low7 (i64.and (local.get $x) (i64.const 0x7f7f7f7f7f7f7f7f)))
    (local.set $lower
      (i64.and
        (i64.and (i64.add (local.get $low7) (i64.const 0x1f1f1f1f1f1f1f1f))
                 (i64.xor (i64.add (local.get $low7) (i64.const 0x0505050505050505)) (i64.const -1)))
        (i64.and (i64.xor (local.get $x) (i64.const -1)) (i64.const 0x8080808080808080))))
    (i64.xor (local.get $x) (i64.shr_u (local.get $lower) (i64.const 2))))
  (func (export "to_upper") (local $v i64) (local $p i32) (local $n i32) (local $i i32) (local $c i32)
    (global.set $bump (i32.const 1024))
    (local.set $v (call $get_value))
    (local.set $p (i32.wrap_i64 (i64.shr_u (local.get $v) (i64.const 32))))
    (local.set $n (i32.wrap_i64 (local.get $v)))
    (block $words (loop $next_word
      (br_if $words (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
      (i64.store (i32.add (local.get $p) (local.get $i))
        (call $upper8 (i64.load (i32.add (local.get $p) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 8)))
      (br $next_word)))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $c (i32.load8_u (i32.add (local.get $p) (local.get $i))))
      (if (i32.lt_u (i32.sub (local.get $c) (i32.const 97)) (i32.const 26))
        (then (i32.store8 (i32.add (local.get $p) (local.get $i)) (i32.sub (local.get $c) (i32.const 32)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (call $set_value (local.get $p) (local.get $n))))
"""
)
