"""Small WAT guests, each a readable specification of one ABI behaviour.

``guest(body, imports=...)`` wraps a body in a module with a bump allocator
(``alloc`` grows memory as needed; every entry call starts by resetting it,
which frees everything the previous record allocated) and ``dealloc``.
"""

from __future__ import annotations

from host_functions._abi import BY_NAME


def _import(name: str) -> str:
    f = BY_NAME[name]
    params = f" (param {' '.join(f.params)})" if f.params else ""
    results = f" (result {' '.join(f.results)})" if f.results else ""
    return f'(import "env" "{name}" (func ${name}{params}{results}))'


def guest(body: str, imports: tuple[str, ...] = (), extra: str = "") -> str:
    """A module importing ``imports`` from ``env``, exporting ``memory``/``alloc``/``dealloc``."""
    return f"""(module
  {' '.join(_import(name) for name in imports)}
  {extra}
  (memory (export "memory") 1)
  (global $bump (mut i32) (i32.const 1024))
  (func $reset (global.set $bump (i32.const 1024)))
  (func $alloc (export "alloc") (param $n i32) (result i32)
    (local $p i32) (local $end i32) (local $have i32)
    (local.set $p (global.get $bump))
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $have (i32.shl (memory.size) (i32.const 16)))
    (if (i32.gt_u (local.get $end) (local.get $have))
      (then (if (i32.eq (memory.grow (i32.shr_u (i32.add (i32.sub (local.get $end) (local.get $have)) (i32.const 65535)) (i32.const 16))) (i32.const -1))
        (then (unreachable)))))
    (global.set $bump (local.get $end))
    (local.get $p))
  (func (export "dealloc") (param i32 i32))
  ;; ptr and len of a packed getter result
  (func $ptr (param $v i64) (result i32) (i32.wrap_i64 (i64.shr_u (local.get $v) (i64.const 32))))
  (func $len (param $v i64) (result i32) (i32.wrap_i64 (local.get $v)))
  ;; write a constant string at a fresh buffer; returns ptr (length known to the caller)
  (func $upper_in_place (param $p i32) (param $n i32)
    (local $i i32) (local $c i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $c (i32.load8_u (i32.add (local.get $p) (local.get $i))))
      (if (i32.and (i32.ge_u (local.get $c) (i32.const 97)) (i32.le_u (local.get $c) (i32.const 122)))
        (then (i32.store8 (i32.add (local.get $p) (local.get $i)) (i32.sub (local.get $c) (i32.const 32)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next))))
  {body}
)"""


#: Upper-cases ASCII letters of the value (the benchmark's job).
TO_UPPER = guest(
    """(func (export "to_upper") (local $v i64)
    (call $reset)
    (local.set $v (call $get_value))
    (call $upper_in_place (call $ptr (local.get $v)) (call $len (local.get $v)))
    (call $set_value (call $ptr (local.get $v)) (call $len (local.get $v))))""",
    imports=("get_value", "set_value"),
)
