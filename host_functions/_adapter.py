"""The fast path's generated Wasm: a dispatch shim and an adapter module.

A guest's ``env`` imports are resolved to the *shim*'s exports; each shim
function only does ``call_indirect`` through the shim's table.  The
*adapter* imports the guest's memory, ``alloc``, ``dealloc`` and entry
function plus that table, and its active element segment fills the table
with its own implementations when it is instantiated.  That breaks the
import cycle (guest needs host functions, host functions need the guest's
memory) without a single Python call per record.

The adapter keeps the batch in its own memories (multi-memory): ``$in``
holds a control block, the staged input columns and per-record scratch;
each output column grows in a memory of its own, so no region has to be
sized in advance.  ``run(start, end)`` loops over the staged rows, calls the
guest once per row and appends what the row produced to the output memories.

Memory layout, shared with :mod:`host_functions._fast` through the
constants below (byte offsets in ``$in``):
"""

from __future__ import annotations

import dataclasses

from host_functions._abi import ABI_FUNCTIONS, PYTHON_SERVED, REFERENCE_ONLY

# --- control block (in $in) -------------------------------------------------
C_SEQ = 0  # incremented when a row starts; the watchdog watches it
C_ROW = 4  # the row being run
C_OUT = 8  # committed output record count
C_CURSORS = 12  # committed byte cursors of ok, ov, otp, ohk, ohv, oht (6 x i32)
C_STATUS = 36  # 0 ok, 1 guest error, 3 bad guest pointer, 4 bad alloc result, 5 output full
C_ERR_PTR = 40
C_ERR_LEN = 44
# column descriptors, written by the host before a run
D_KEY = 64  # offsets ptr, data origin, validity ptr (0: all valid)
D_VALUE = 76
D_TOPIC = 88  # offsets ptr, data origin
D_TS = 96  # i64 array ptr, validity ptr
D_PART = 104  # i32 array ptr, validity ptr
D_OFFSET = 112  # i64 array ptr, validity ptr
D_HEADERS = 120  # list offsets ptr (0: no headers), then key offsets/origin, value offsets/origin/validity
D_CONFIG = 144  # entry count, table ptr (entries: name ptr, name len, value ptr, value len)
D_SCRATCH = 152  # where per-record scratch starts
CONTROL_SIZE = 256

#: One output record in ``$ot``: parent, key len, value len, topic len (-1 = null),
#: timestamp (i64), timestamp is null, header count, set mask, padding.
OUT_RECORD_SIZE = 40
#: One output header in ``$oht``: key len, value len (-1 = null).
OUT_HEADER_SIZE = 8

SET_KEY, SET_VALUE, SET_TOPIC, SET_HEADERS, SET_TIMESTAMP = 1, 2, 4, 8, 16

#: Output memories, in the order of the committed cursors.
OUTPUT_MEMORIES = ("ok", "ov", "otp", "ohk", "ohv", "oht")

#: Host functions the adapter implements, in table order.
FAST_FUNCTIONS = tuple(
    f for f in ABI_FUNCTIONS if f.name not in REFERENCE_ONLY and f.name not in PYTHON_SERVED
)


@dataclasses.dataclass(frozen=True)
class AdapterShape:
    """What the generated adapter must fit: the guest's entry and what it may change."""

    entry_returns_i64: bool
    has_dealloc: bool
    modifies_key: bool
    modifies_value: bool
    modifies_topic: bool
    modifies_headers: bool
    modifies_timestamp: bool


def _type_name(params: tuple[str, ...], results: tuple[str, ...]) -> str:
    return "$t_" + "".join(params) + "_" + "".join(results)


def _func_type(params: tuple[str, ...], results: tuple[str, ...]) -> str:
    p = f" (param {' '.join(params)})" if params else ""
    r = f" (result {' '.join(results)})" if results else ""
    return f"(type {_type_name(params, results)} (func{p}{r}))"


def _types() -> str:
    seen = {}
    for f in FAST_FUNCTIONS:
        seen.setdefault(_type_name(f.params, f.results), _func_type(f.params, f.results))
    return "\n  ".join(seen.values())


def shim_wat() -> str:
    """The dispatch shim: one exported function per fast host function."""
    funcs = []
    for index, f in enumerate(FAST_FUNCTIONS):
        params = f" (param {' '.join(f.params)})" if f.params else ""
        results = f" (result {' '.join(f.results)})" if f.results else ""
        args = " ".join(f"(local.get {i})" for i in range(len(f.params)))
        funcs.append(
            f'(func (export "{f.name}"){params}{results}\n'
            f"    (call_indirect (type {_type_name(f.params, f.results)}) {args} (i32.const {index})))"
        )
    return (
        "(module\n  "
        + _types()
        + f'\n  (table (export "table") {len(FAST_FUNCTIONS)} funcref)\n  '
        + "\n  ".join(funcs)
        + "\n)"
    )


def adapter_wat(shape: AdapterShape) -> str:
    """The adapter for a guest of the given shape."""
    entry_type = "(result i64)" if shape.entry_returns_i64 else ""
    dealloc = (
        '(import "guest" "dealloc" (func $dealloc (param i32 i32)))'
        if shape.has_dealloc
        else "(func $dealloc (param i32 i32))"
    )
    elem = " ".join(f"${f.name}" for f in FAST_FUNCTIONS)
    return _ADAPTER.format(
        entry_type=entry_type,
        dealloc=dealloc,
        elem=elem,
        call_entry=_CALL_ENTRY_I64.format(**_CONSTANTS) if shape.entry_returns_i64 else "(call $entry)",
        ensure=_ensure_funcs(),
        copy_key=_copy_field("k", "ok", 4, SET_KEY) if shape.modifies_key else "",
        copy_value=_copy_field("v", "ov", 8, SET_VALUE) if shape.modifies_value else "",
        copy_topic=_copy_field("t", "otp", 12, SET_TOPIC) if shape.modifies_topic else "",
        copy_headers=_COPY_HEADERS.format(**_CONSTANTS) if shape.modifies_headers else "",
        **_CONSTANTS,
    )


_CONSTANTS = {
    name: value
    for name, value in globals().items()
    if name.isupper() and (name.startswith("C_") or name.startswith("D_")) and isinstance(value, int)
}
_CONSTANTS.update(OUT_RECORD_SIZE=OUT_RECORD_SIZE, OUT_HEADER_SIZE=OUT_HEADER_SIZE)


def _ensure_funcs() -> str:
    """One ``$ensure_M(end)`` per growable memory: grow it to hold ``end`` bytes."""
    out = []
    for mem in ("in", "ot", "ch") + OUTPUT_MEMORIES:
        out.append(
            f"""(func $ensure_{mem} (param $end i32)
    (local $have i32)
    (local.set $have (i32.shl (memory.size ${mem}) (i32.const 16)))
    (if (i32.gt_u (local.get $end) (local.get $have))
      (then
        (if (i32.eq (memory.grow ${mem}
              (i32.shr_u (i32.add (i32.sub (local.get $end) (local.get $have)) (i32.const 65535)) (i32.const 16)))
              (i32.const -1))
          (then (i32.store $in (i32.const {C_STATUS}) (i32.const 5)) (unreachable))))))"""
        )
    return "\n  ".join(out)


def _copy_field(field: str, mem: str, slot: int, bit: int) -> str:
    """Append the current field's bytes to its output memory, record its length."""
    return f"""
    (i32.store $ot offset={slot} (local.get $o) (global.get ${field}l))
    (if (i32.gt_s (global.get ${field}l) (i32.const 0))
      (then
        (call $ensure_{mem} (i32.add (global.get $w{mem}) (global.get ${field}l)))
        (memory.copy ${mem} $in (global.get $w{mem}) (global.get ${field}p) (global.get ${field}l))
        (global.set $w{mem} (i32.add (global.get $w{mem}) (global.get ${field}l)))))"""


_COPY_HEADERS = """
    (i32.store $ot offset=28 (local.get $o) (global.get $hn))
    (local.set $e (i32.const 0))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $e) (global.get $hn)))
      (local.set $h (i32.shl (local.get $e) (i32.const 4)))
      (local.set $kl (i32.load $ch offset=4 (local.get $h)))
      (local.set $vl (i32.load $ch offset=12 (local.get $h)))
      (call $ensure_ohk (i32.add (global.get $wohk) (local.get $kl)))
      (memory.copy $ohk $in (global.get $wohk) (i32.load $ch (local.get $h)) (local.get $kl))
      (global.set $wohk (i32.add (global.get $wohk) (local.get $kl)))
      (if (i32.gt_s (local.get $vl) (i32.const 0))
        (then
          (call $ensure_ohv (i32.add (global.get $wohv) (local.get $vl)))
          (memory.copy $ohv $in (global.get $wohv) (i32.load $ch offset=8 (local.get $h)) (local.get $vl))
          (global.set $wohv (i32.add (global.get $wohv) (local.get $vl)))))
      (call $ensure_oht (i32.add (global.get $woht) (i32.const {OUT_HEADER_SIZE})))
      (i32.store $oht (global.get $woht) (local.get $kl))
      (i32.store $oht offset=4 (global.get $woht) (local.get $vl))
      (global.set $woht (i32.add (global.get $woht) (i32.const {OUT_HEADER_SIZE})))
      (local.set $e (i32.add (local.get $e) (i32.const 1)))
      (br $next)))"""

_CALL_ENTRY_I64 = """(local.set $res (call $entry))
      (local.set $len (i32.wrap_i64 (local.get $res)))
      (local.set $ptr (i32.wrap_i64 (i64.shr_u (local.get $res) (i64.const 32))))
      (if (i32.lt_s (local.get $len) (i32.const 0))
        (then
          (local.set $mlen (i32.and (local.get $len) (i32.const 0x7fffffff)))
          (call $check_guest (local.get $ptr) (local.get $mlen))
          (call $ensure_in (i32.add (global.get $sc) (local.get $mlen)))
          (memory.copy $in $g (global.get $sc) (local.get $ptr) (local.get $mlen))
          (i32.store $in (i32.const {C_ERR_PTR}) (global.get $sc))
          (i32.store $in (i32.const {C_ERR_LEN}) (local.get $mlen))
          (i32.store $in (i32.const {C_STATUS}) (i32.const 1))
          (call $dealloc (local.get $ptr) (local.get $len))
          (return (i32.add (local.get $r) (i32.const 1)))))
      (call $dealloc (local.get $ptr) (local.get $len))"""

_ADAPTER = """(module
  (import "guest" "memory" (memory $g 0))
  (import "guest" "alloc" (func $alloc (param i32) (result i32)))
  (import "guest" "entry" (func $entry {entry_type}))
  (import "shim" "table" (table $table 0 funcref))
  {dealloc}
  (memory $in (export "in") 1)
  (memory $ot (export "ot") 1)
  (memory $ok (export "ok") 0)
  (memory $ov (export "ov") 0)
  (memory $otp (export "otp") 0)
  (memory $ohk (export "ohk") 0)
  (memory $ohv (export "ohv") 0)
  (memory $oht (export "oht") 0)
  (memory $ch 1)
  (global $row (mut i32) (i32.const 0))
  (global $kp (mut i32) (i32.const 0)) (global $kl (mut i32) (i32.const 0))
  (global $vp (mut i32) (i32.const 0)) (global $vl (mut i32) (i32.const 0))
  (global $tp (mut i32) (i32.const 0)) (global $tl (mut i32) (i32.const 0))
  (global $ts (mut i64) (i64.const 0)) (global $tsn (mut i32) (i32.const 0))
  (global $part (mut i32) (i32.const 0)) (global $offs (mut i64) (i64.const 0))
  (global $hn (mut i32) (i32.const 0))
  (global $drop (mut i32) (i32.const 0))
  (global $mask (mut i32) (i32.const 0))
  (global $sc (mut i32) (i32.const 0))
  (global $wo (mut i32) (i32.const 0))
  (global $wok (mut i32) (i32.const 0)) (global $wov (mut i32) (i32.const 0))
  (global $wotp (mut i32) (i32.const 0)) (global $wohk (mut i32) (i32.const 0))
  (global $wohv (mut i32) (i32.const 0)) (global $woht (mut i32) (i32.const 0))
  (elem (table $table) (i32.const 0) func {elem})

  {ensure}

  ;; a guest pointer range must lie inside the guest's memory
  (func $check_guest (param $p i32) (param $l i32)
    (if (i64.gt_u (i64.add (i64.extend_i32_u (local.get $p)) (i64.extend_i32_u (local.get $l)))
                  (i64.shl (i64.extend_i32_u (memory.size $g)) (i64.const 16)))
      (then
        (i32.store $in (i32.const {C_ERR_PTR}) (local.get $p))
        (i32.store $in (i32.const {C_ERR_LEN}) (local.get $l))
        (i32.store $in (i32.const {C_STATUS}) (i32.const 3))
        (unreachable))))

  ;; copy (ptr, len) of $in into a fresh guest buffer from alloc; return it packed
  (func $give (param $p i32) (param $l i32) (result i64)
    (local $dst i32)
    (local.set $dst (call $alloc (local.get $l)))
    (if (i64.gt_u (i64.add (i64.extend_i32_u (local.get $dst)) (i64.extend_i32_u (local.get $l)))
                  (i64.shl (i64.extend_i32_u (memory.size $g)) (i64.const 16)))
      (then
        (i32.store $in (i32.const {C_ERR_PTR}) (local.get $dst))
        (i32.store $in (i32.const {C_ERR_LEN}) (local.get $l))
        (i32.store $in (i32.const {C_STATUS}) (i32.const 4))
        (unreachable)))
    (memory.copy $g $in (local.get $dst) (local.get $p) (local.get $l))
    (i64.or (i64.shl (i64.extend_i32_u (local.get $dst)) (i64.const 32)) (i64.extend_i32_u (local.get $l))))

  ;; copy guest (ptr, len) into scratch; return where it landed
  (func $take (param $p i32) (param $l i32) (result i32)
    (local $at i32)
    (call $check_guest (local.get $p) (local.get $l))
    (local.set $at (global.get $sc))
    (call $ensure_in (i32.add (local.get $at) (local.get $l)))
    (memory.copy $in $g (local.get $at) (local.get $p) (local.get $l))
    (global.set $sc (i32.add (local.get $at) (local.get $l)))
    (local.get $at))

  (func $valid (param $vp i32) (param $i i32) (result i32)
    (if (result i32) (i32.eqz (local.get $vp))
      (then (i32.const 1))
      (else (i32.load8_u $in (i32.add (local.get $vp) (local.get $i))))))

  ;; (ptr, len) of element $i of a binary column: offsets at $off, data origin $org
  (func $slice (param $off i32) (param $org i32) (param $i i32) (result i32 i32)
    (local $a i32) (local $s i32)
    (local.set $a (i32.add (local.get $off) (i32.shl (local.get $i) (i32.const 2))))
    (local.set $s (i32.load $in (local.get $a)))
    (i32.add (local.get $org) (local.get $s))
    (i32.sub (i32.load $in offset=4 (local.get $a)) (local.get $s)))

  (func $eq_in_guest (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32)
    (block $no (loop $next
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const 1))))
      (br_if $no (i32.ne (i32.load8_u $in (i32.add (local.get $a) (local.get $i)))
                         (i32.load8_u $g (i32.add (local.get $b) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.const 0))

  (func $load_row (param $r i32)
    (local $d i32) (local $j i32) (local $end i32) (local $h i32) (local $p i32) (local $l i32)
    (global.set $row (local.get $r))
    (global.set $sc (i32.load $in (i32.const {D_SCRATCH})))
    (global.set $drop (i32.const 0))
    (global.set $mask (i32.const 0))
    (global.set $hn (i32.const 0))
    (if (i32.load $in (i32.const {D_KEY}))
      (then
        (call $slice (i32.load $in (i32.const {D_KEY})) (i32.load $in offset=4 (i32.const {D_KEY})) (local.get $r))
        (global.set $kl) (global.set $kp)
        (if (i32.eqz (call $valid (i32.load $in offset=8 (i32.const {D_KEY})) (local.get $r)))
          (then (global.set $kl (i32.const -1)))))
      (else (global.set $kl (i32.const -1))))
    (if (i32.load $in (i32.const {D_VALUE}))
      (then
        (call $slice (i32.load $in (i32.const {D_VALUE})) (i32.load $in offset=4 (i32.const {D_VALUE})) (local.get $r))
        (global.set $vl) (global.set $vp)
        (if (i32.eqz (call $valid (i32.load $in offset=8 (i32.const {D_VALUE})) (local.get $r)))
          (then (global.set $vl (i32.const -1)))))
      (else (global.set $vl (i32.const -1))))
    (if (i32.load $in (i32.const {D_TOPIC}))
      (then
        (call $slice (i32.load $in (i32.const {D_TOPIC})) (i32.load $in offset=4 (i32.const {D_TOPIC})) (local.get $r))
        (global.set $tl) (global.set $tp))
      (else (global.set $tl (i32.const 0))))
    ;; fixed-width columns are staged only when the guest imports a function reading them
    (global.set $tsn (i32.const 1))
    (if (i32.load $in (i32.const {D_TS}))
      (then
        (global.set $ts (i64.load $in (i32.add (i32.load $in (i32.const {D_TS})) (i32.shl (local.get $r) (i32.const 3)))))
        (global.set $tsn (i32.eqz (call $valid (i32.load $in offset=4 (i32.const {D_TS})) (local.get $r))))))
    (global.set $part (i32.const -1))
    (if (i32.load $in (i32.const {D_PART}))
      (then (if (call $valid (i32.load $in offset=4 (i32.const {D_PART})) (local.get $r))
        (then (global.set $part (i32.load $in (i32.add (i32.load $in (i32.const {D_PART})) (i32.shl (local.get $r) (i32.const 2)))))))))
    (global.set $offs (i64.const -1))
    (if (i32.load $in (i32.const {D_OFFSET}))
      (then (if (call $valid (i32.load $in offset=4 (i32.const {D_OFFSET})) (local.get $r))
        (then (global.set $offs (i64.load $in (i32.add (i32.load $in (i32.const {D_OFFSET})) (i32.shl (local.get $r) (i32.const 3)))))))))
    (local.set $d (i32.load $in (i32.const {D_HEADERS})))
    (if (local.get $d)
      (then
        (local.set $j (i32.load $in (i32.add (local.get $d) (i32.shl (local.get $r) (i32.const 2)))))
        (local.set $end (i32.load $in offset=4 (i32.add (local.get $d) (i32.shl (local.get $r) (i32.const 2)))))
        (block $done (loop $next
          (br_if $done (i32.ge_u (local.get $j) (local.get $end)))
          (local.set $h (i32.shl (global.get $hn) (i32.const 4)))
          (call $ensure_ch (i32.add (local.get $h) (i32.const 16)))
          (call $slice (i32.load $in offset=4 (i32.const {D_HEADERS})) (i32.load $in offset=8 (i32.const {D_HEADERS})) (local.get $j))
          (local.set $l) (local.set $p)
          (i32.store $ch (local.get $h) (local.get $p))
          (i32.store $ch offset=4 (local.get $h) (local.get $l))
          (call $slice (i32.load $in offset=12 (i32.const {D_HEADERS})) (i32.load $in offset=16 (i32.const {D_HEADERS})) (local.get $j))
          (local.set $l) (local.set $p)
          (if (i32.eqz (call $valid (i32.load $in offset=20 (i32.const {D_HEADERS})) (local.get $j)))
            (then (local.set $l (i32.const -1))))
          (i32.store $ch offset=8 (local.get $h) (local.get $p))
          (i32.store $ch offset=12 (local.get $h) (local.get $l))
          (global.set $hn (i32.add (global.get $hn) (i32.const 1)))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br $next))))))

  ;; append the current record to the output memories
  (func $output
    (local $o i32) (local $e i32) (local $h i32) (local $kl i32) (local $vl i32)
    (local.set $o (i32.mul (global.get $wo) (i32.const {OUT_RECORD_SIZE})))
    (call $ensure_ot (i32.add (local.get $o) (i32.const {OUT_RECORD_SIZE})))
    (i32.store $ot (local.get $o) (global.get $row))
    (i64.store $ot offset=16 (local.get $o) (global.get $ts))
    (i32.store $ot offset=24 (local.get $o) (global.get $tsn))
    (i32.store $ot offset=32 (local.get $o) (global.get $mask))
    {copy_key}
    {copy_value}
    {copy_topic}
    {copy_headers}
    (global.set $wo (i32.add (global.get $wo) (i32.const 1))))

  (func $load_cursors
    (global.set $wo (i32.load $in (i32.const {C_OUT})))
    (global.set $wok (i32.load $in offset=0 (i32.const {C_CURSORS})))
    (global.set $wov (i32.load $in offset=4 (i32.const {C_CURSORS})))
    (global.set $wotp (i32.load $in offset=8 (i32.const {C_CURSORS})))
    (global.set $wohk (i32.load $in offset=12 (i32.const {C_CURSORS})))
    (global.set $wohv (i32.load $in offset=16 (i32.const {C_CURSORS})))
    (global.set $woht (i32.load $in offset=20 (i32.const {C_CURSORS}))))

  (func $commit
    (i32.store $in (i32.const {C_OUT}) (global.get $wo))
    (i32.store $in offset=0 (i32.const {C_CURSORS}) (global.get $wok))
    (i32.store $in offset=4 (i32.const {C_CURSORS}) (global.get $wov))
    (i32.store $in offset=8 (i32.const {C_CURSORS}) (global.get $wotp))
    (i32.store $in offset=12 (i32.const {C_CURSORS}) (global.get $wohk))
    (i32.store $in offset=16 (i32.const {C_CURSORS}) (global.get $wohv))
    (i32.store $in offset=20 (i32.const {C_CURSORS}) (global.get $woht)))

  ;; run rows [start, end); returns the row to resume at (end when all ran)
  (func (export "run") (param $start i32) (param $end i32) (result i32)
    (local $r i32) (local $res i64) (local $ptr i32) (local $len i32) (local $mlen i32)
    (i32.store $in (i32.const {C_STATUS}) (i32.const 0))
    (local.set $r (local.get $start))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $r) (local.get $end)))
      (call $load_cursors)
      (i32.store $in (i32.const {C_SEQ}) (i32.add (i32.load $in (i32.const {C_SEQ})) (i32.const 1)))
      (i32.store $in (i32.const {C_ROW}) (local.get $r))
      (call $load_row (local.get $r))
      {call_entry}
      (if (i32.eqz (global.get $drop)) (then (call $output)))
      (call $commit)
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $next)))
    (local.get $end))

  ;; --- host functions --------------------------------------------------
  (func $get_key (result i64)
    (if (result i64) (i32.lt_s (global.get $kl) (i32.const 0))
      (then (i64.const 0)) (else (call $give (global.get $kp) (global.get $kl)))))
  (func $set_key (param $p i32) (param $l i32)
    (global.set $kp (call $take (local.get $p) (local.get $l)))
    (global.set $kl (local.get $l))
    (global.set $mask (i32.or (global.get $mask) (i32.const 1))))
  (func $get_value (result i64)
    (if (result i64) (i32.lt_s (global.get $vl) (i32.const 0))
      (then (i64.const 0)) (else (call $give (global.get $vp) (global.get $vl)))))
  (func $set_value (param $p i32) (param $l i32)
    (global.set $vp (call $take (local.get $p) (local.get $l)))
    (global.set $vl (local.get $l))
    (global.set $mask (i32.or (global.get $mask) (i32.const 2))))
  (func $get_topic (result i64)
    (call $give (global.get $tp) (global.get $tl)))
  (func $set_topic (param $p i32) (param $l i32)
    (global.set $tp (call $take (local.get $p) (local.get $l)))
    (global.set $tl (local.get $l))
    (global.set $mask (i32.or (global.get $mask) (i32.const 4))))
  (func $get_header (param $np i32) (param $nl i32) (result i64)
    (local $e i32) (local $h i32)
    (call $check_guest (local.get $np) (local.get $nl))
    (local.set $e (global.get $hn))
    (block $none (loop $next
      (br_if $none (i32.eqz (local.get $e)))
      (local.set $e (i32.sub (local.get $e) (i32.const 1)))
      (local.set $h (i32.shl (local.get $e) (i32.const 4)))
      (if (i32.and
            (i32.eq (i32.load $ch offset=4 (local.get $h)) (local.get $nl))
            (call $eq_in_guest (i32.load $ch (local.get $h)) (local.get $np) (local.get $nl)))
        (then
          (if (i32.lt_s (i32.load $ch offset=12 (local.get $h)) (i32.const 0))
            (then (return (i64.const 0))))
          (return (call $give (i32.load $ch offset=8 (local.get $h)) (i32.load $ch offset=12 (local.get $h))))))
      (br $next)))
    (i64.const 0))
  (func $set_header (param $np i32) (param $nl i32) (param $dp i32) (param $dl i32)
    (local $h i32) (local $k i32) (local $v i32)
    (local.set $k (call $take (local.get $np) (local.get $nl)))
    (local.set $v (call $take (local.get $dp) (local.get $dl)))
    (local.set $h (i32.shl (global.get $hn) (i32.const 4)))
    (call $ensure_ch (i32.add (local.get $h) (i32.const 16)))
    (i32.store $ch (local.get $h) (local.get $k))
    (i32.store $ch offset=4 (local.get $h) (local.get $nl))
    (i32.store $ch offset=8 (local.get $h) (local.get $v))
    (i32.store $ch offset=12 (local.get $h) (local.get $dl))
    (global.set $hn (i32.add (global.get $hn) (i32.const 1)))
    (global.set $mask (i32.or (global.get $mask) (i32.const 8))))
  (func $get_timestamp (result i64)
    (if (result i64) (global.get $tsn) (then (i64.const -1)) (else (global.get $ts))))
  (func $set_timestamp (param $t i64)
    (global.set $ts (local.get $t))
    (global.set $tsn (i64.eq (local.get $t) (i64.const -1)))
    (global.set $mask (i32.or (global.get $mask) (i32.const 16))))
  (func $get_partition (result i32) (global.get $part))
  (func $get_offset (result i64) (global.get $offs))
  (func $get_config (param $np i32) (param $nl i32) (result i64)
    (local $e i32) (local $n i32) (local $t i32)
    (call $check_guest (local.get $np) (local.get $nl))
    (local.set $n (i32.load $in (i32.const {D_CONFIG})))
    (local.set $t (i32.load $in offset=4 (i32.const {D_CONFIG})))
    (block $none (loop $next
      (br_if $none (i32.ge_u (local.get $e) (local.get $n)))
      (if (i32.and
            (i32.eq (i32.load $in offset=4 (local.get $t)) (local.get $nl))
            (call $eq_in_guest (i32.load $in (local.get $t)) (local.get $np) (local.get $nl)))
        (then (return (call $give (i32.load $in offset=8 (local.get $t)) (i32.load $in offset=12 (local.get $t))))))
      (local.set $t (i32.add (local.get $t) (i32.const 16)))
      (local.set $e (i32.add (local.get $e) (i32.const 1)))
      (br $next)))
    (i64.const 0))
  (func $drop_record (global.set $drop (i32.const 1)))
  (func $emit_record (call $output))
)"""
