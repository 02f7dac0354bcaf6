"""The adapter's host functions, as WAT, for one guest shape.

Getters hand the guest a fresh copy (through its ``alloc``), setters copy the
guest's bytes before returning (straight to the output memory for key, value
and topic), as the ABI's ownership rules say; a bad pointer fails the record
through the control block's status.  Shared building blocks live here too.
"""

from __future__ import annotations

import dataclasses

from host_functions.kafka_connect.layout import (
    C_ERR_LEN,
    C_ERR_PTR,
    C_IRREGULAR,
    C_STATUS,
    D_CONFIG,
    D_KEY,
    D_TOPIC,
    D_VALUE,
    INPUT_BITS,
    KEY_NULL,
    OUTPUT_MEMORIES,
    S_STATE,
    SET_HEADERS,
    SET_KEY,
    SET_TIMESTAMP,
    SET_TOPIC,
    SET_VALUE,
    STATE_FIELDS,
    VALIDITY_UNREADABLE,
    VALUE_NULL,
    AdapterShape,
    Status,
)

__all__ = [
    "BINARY",
    "CURSOR",
    "Binary",
    "check_guest",
    "copy",
    "demand",
    "ensure",
    "extra_imports",
    "helpers",
    "host_functions",
    "readable",
    "statements",
]


@dataclasses.dataclass(frozen=True)
class Binary:
    """A byte column the guest can read and replace."""

    column: str
    g: str  # prefix of its globals: $Xp $Xl (current bytes), $Xw (1: they sit in the output memory)
    data: str  # output bytes memory
    offsets: str  # output end-offsets memory
    set_bit: int
    null_bit: int | None  # None: never null (the topic)
    descriptor: int


BINARY = (
    Binary("key", "k", "ok", "oko", SET_KEY, KEY_NULL, D_KEY),
    Binary("value", "v", "ov", "ovo", SET_VALUE, VALUE_NULL, D_VALUE),
    Binary("topic", "t", "otp", "otpo", SET_TOPIC, None, D_TOPIC),
)
CURSOR = {name: f"$w{name}" for name in OUTPUT_MEMORIES}


def fail_record(status: Status, ptr: str, length: str) -> str:
    return (
        f"(i32.store $in (i32.const {C_ERR_PTR}) {ptr}) (i32.store $in (i32.const {C_ERR_LEN}) {length}) "
        f"(i32.store $in (i32.const {C_STATUS}) (i32.const {status.value})) (unreachable)"
    )


def demand(shape: AdapterShape, *columns: str) -> str:
    """Stop the run with Status.NEEDS_INPUT unless ``columns`` are all staged ("" when they are)."""
    bits = sum(INPUT_BITS[column] for column in columns if column not in shape.staged)
    return f"(call $demand (i32.const {bits}))" if bits else ""


def check_guest(ptr: str, length: str, status: Status = Status.BAD_POINTER) -> str:
    """Fail the record (``status``) unless [ptr, ptr + len) lies inside guest memory."""
    return (
        f"(if (i64.gt_u (i64.add (i64.extend_i32_u {ptr}) (i64.extend_i32_u {length}))\n"
        f"                  (i64.shl (i64.extend_i32_u (memory.size $g)) (i64.const 16)))\n"
        f"      (then {fail_record(status, ptr, length)}))"
    )


def ensure(mem: str, end: str) -> str:
    """Grow ``mem`` to hold ``end`` bytes (``end`` must be a plain local/global get)."""
    return f"(if (i32.gt_u {end} (i32.shl (memory.size ${mem}) (i32.const 16))) (then (call $grow_{mem} {end})))"


def bytes_equal(name: str, mem_a: str, mem_b: str) -> str:
    """``$name(a, b, n)``: 1 when the n bytes at a in ``mem_a`` equal those at b in ``mem_b``."""
    return f"""(func ${name} (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32)
    (block $no (loop $next
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const 1))))
      (br_if $no (i32.ne (i32.load8_u ${mem_a} (i32.add (local.get $a) (local.get $i)))
                         (i32.load8_u ${mem_b} (i32.add (local.get $b) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.const 0))"""


def helpers() -> str:
    """Functions the host functions and the run loop share."""
    return "\n".join([_GIVE_TAKE, _give("in"), _DEMAND, *(_small_copy(dst, src) for dst, src in _SMALL_COPIES)])


#: (destination, source) memory pairs with a ``$copy_D_S`` function (different memories: no overlap).
_SMALL_COPIES = tuple(
    (dst, src) for column in ("ok", "ov", "otp") for dst, src in (("g", column), (column, "g"), (column, "in"))
) + (("g", "in"),)
#: Copies up to this many bytes are inline loads and stores: ``memory.copy`` is a call out of
#: Wasm into the runtime, which costs more than moving a short key or value.
_SMALL_COPY_MAX = 64


def statements(items, indent: int) -> str:
    """WAT statements one per line, at ``indent`` spaces (the first line's indent is the template's).

    Generated code stays one instruction per line, so a generator change shows as a readable diff of
    the WAT snapshots (``tests/host_functions/snapshots/``).
    """
    return ("\n" + " " * indent).join(items)


def copy(dst: str, src: str, d: str, s: str, n: str) -> str:
    """Copy n bytes from ``src`` at s to ``dst`` at d (two different memories)."""
    return f"(call $copy_{dst}_{src} {d} {s} {n})"


def _small_copy(dst: str, src: str) -> str:
    def word(at: int) -> str:
        return f"(i64.store ${dst} offset={at} (local.get $d) (i64.load ${src} offset={at} (local.get $s)))"

    middle = statements(
        (
            f"(if (i32.gt_u (local.get $n) (i32.const {8 * k + 8})) (then {word(8 * k)}))"
            for k in range(1, _SMALL_COPY_MAX // 8 - 1)
        ),
        8,
    )
    return f"""  ;; 8 to 64 bytes: words from the front and one word ending at n (overlapping what came before)
  (func $copy_{dst}_{src} (param $d i32) (param $s i32) (param $n i32)
    (local $t i32)
    (if (i32.gt_u (local.get $n) (i32.const {_SMALL_COPY_MAX}))
      (then (memory.copy ${dst} ${src} (local.get $d) (local.get $s) (local.get $n)) (return)))
    (if (i32.ge_u (local.get $n) (i32.const 8))
      (then
        {word(0)}
        {middle}
        (local.set $t (i32.sub (local.get $n) (i32.const 8)))
        (i64.store ${dst} (i32.add (local.get $d) (local.get $t)) (i64.load ${src} (i32.add (local.get $s) (local.get $t))))
        (return)))
    (if (i32.ge_u (local.get $n) (i32.const 4))
      (then
        (i32.store ${dst} (local.get $d) (i32.load ${src} (local.get $s)))
        (local.set $t (i32.sub (local.get $n) (i32.const 4)))
        (i32.store ${dst} (i32.add (local.get $d) (local.get $t)) (i32.load ${src} (i32.add (local.get $s) (local.get $t))))
        (return)))
    (if (local.get $n) (then (i32.store8 ${dst} (local.get $d) (i32.load8_u ${src} (local.get $s)))))
    (if (i32.gt_u (local.get $n) (i32.const 1))
      (then (i32.store8 ${dst} offset=1 (local.get $d) (i32.load8_u ${src} offset=1 (local.get $s)))))
    (if (i32.gt_u (local.get $n) (i32.const 2))
      (then (i32.store8 ${dst} offset=2 (local.get $d) (i32.load8_u ${src} offset=2 (local.get $s))))))"""


#: $demand: the host stages the columns and runs the record again on a fresh instance;
#: $unreadable: the host fails the record with its converter's error.
_DEMAND = "\n".join(
    f"""  (func ${name} (param $bits i32)
    (i32.store $in (i32.const {C_ERR_PTR}) (local.get $bits))
    (i32.store $in (i32.const {C_STATUS}) (i32.const {status.value}))
    (unreachable))"""
    for name, status in (("demand", Status.NEEDS_INPUT), ("unreadable", Status.INPUT_UNREADABLE))
)


def readable(shape: AdapterShape, *columns: str) -> str:
    """Fail the record (Status.INPUT_UNREADABLE) when a staged column's converter failed on it."""
    checks = []
    for column in columns:
        if column not in shape.staged:
            continue
        bit = INPUT_BITS[column]
        if column == "headers":
            checks.append(
                f"(if (global.get $hbad) (then (if (i32.load8_u $in (i32.add (global.get $hbad) "
                f"(global.get $row))) (then (call $unreadable (i32.const {bit}))))))"
            )
        elif column in ("key", "value"):
            # (bytes the guest set since are not the input's: they read fine)
            valid, written = f"${column[0]}val", f"${column[0]}w"
            checks.append(
                f"(if (i32.and (i32.ne (global.get {valid}) (i32.const 0)) (i32.eqz (global.get {written}))) "
                f"(then (if (i32.eq (i32.load8_u $in (i32.add (global.get {valid}) (global.get $row))) "
                f"(i32.const {VALIDITY_UNREADABLE})) (then (call $unreadable (i32.const {bit}))))))"
            )
    return statements(checks, 4)


def host_functions(shape: AdapterShape) -> str:
    """Every fast host function the shim's table names (stubs for what the guest does not import)."""
    return "\n".join([*(_binary_functions(b, shape) for b in BINARY), _record_json(shape), _other_functions(shape)])


_GIVE_TAKE = f"""  ;; copy guest (ptr, len) into $in scratch; return where it landed
  (func $take (param $p i32) (param $l i32) (result i32)
    (local $at i32) (local $end i32)
    {check_guest("(local.get $p)", "(local.get $l)")}
    (local.set $at (global.get $sc))
    (local.set $end (i32.add (local.get $at) (local.get $l)))
    {ensure("in", "(local.get $end)")}
    (memory.copy $in $g (local.get $at) (local.get $p) (local.get $l))
    (global.set $sc (local.get $end))
    (local.get $at))

  {bytes_equal("eq_in_guest", "in", "g")}"""


def _give(mem: str) -> str:
    """``$give_M(p, l)``: copy (p, l) of ``mem`` into a fresh guest buffer from alloc; packed result."""
    return f"""  (func $give_{mem} (param $p i32) (param $l i32) (result i64)
    (local $dst i32)
    (local.set $dst (call $alloc (local.get $l)))
    {check_guest("(local.get $dst)", "(local.get $l)", status=Status.BAD_ALLOC)}
    (memory.copy $g ${mem} (local.get $dst) (local.get $p) (local.get $l))
    (i64.or (i64.shl (i64.extend_i32_u (local.get $dst)) (i64.const 32)) (i64.extend_i32_u (local.get $l))))"""


def _binary_functions(b: Binary, shape: AdapterShape) -> str:
    if b.column not in shape.staged:
        get = f"  (func $get_{b.column} (result i64) {demand(shape, b.column)} (i64.const 0))"
    else:
        args = ("(local.get $dst)", "(local.get $p)", "(local.get $l)")
        get_copy = copy("g", "in", *args)
        if shape.modifies(b.column):
            get_copy = f"(if (local.get $w) (then {copy('g', b.data, *args)}) (else {get_copy}))"
        # $give inlined: the getter is the hottest host function
        get = f"""  (func $get_{b.column} (result i64)
    (local $p i32) (local $l i32) (local $w i32) (local $dst i32)
    {readable(shape, b.column)}
    (local.set $l (global.get ${b.g}l))
    (if (i32.lt_s (local.get $l) (i32.const 0)) (then (return (i64.const 0))))
    (local.set $p (global.get ${b.g}p))
    (local.set $w (global.get ${b.g}w))
    (local.set $dst (call $alloc (local.get $l)))
    {check_guest("(local.get $dst)", "(local.get $l)", status=Status.BAD_ALLOC)}
    {get_copy}
    (i64.or (i64.shl (i64.extend_i32_u (local.get $dst)) (i64.const 32)) (i64.extend_i32_u (local.get $l))))"""
    if not shape.modifies(b.column):
        return get + f"\n  (func $set_{b.column} (param i32 i32))"
    cursor = CURSOR[b.data]
    return (
        get
        + f"""
  ;; the bytes go straight to the end of the output memory: $output then only moves the cursor
  (func $set_{b.column} (param $p i32) (param $l i32)
    (local $e i32)
    {check_guest("(local.get $p)", "(local.get $l)")}
    (local.set $e (i32.add (global.get {cursor}) (local.get $l)))
    {ensure(b.data, "(local.get $e)")}
    {copy(b.data, "g", f"(global.get {cursor})", "(local.get $p)", "(local.get $l)")}
    (global.set ${b.g}p (global.get {cursor}))
    (global.set ${b.g}l (local.get $l))
    (global.set ${b.g}w (i32.const 1))
    (global.set $mask (i32.or (global.get $mask) (i32.const {b.set_bit}))))"""
    )


def extra_imports(shape: AdapterShape) -> str:
    """Imports beyond the guest's memory, alloc and entry: its dealloc, Python's get/set_record."""
    lines = ['(import "guest" "dealloc" (func $dealloc (param i32 i32)))'] if shape.has_dealloc else []
    if shape.get_record:
        lines.append('(import "host" "get_record" (func $py_get_record (result i32)))')
    if shape.set_record:
        lines.append('(import "host" "set_record" (func $py_set_record (param i32 i32)))')
    return "\n  ".join(lines)


def _record_json(shape: AdapterShape) -> str:
    """set_record (and get_record's fallback): spill the record state to $in, let Python work on it, reload it."""
    spill = statements(
        (f"(i32.store $in (i32.const {S_STATE + 4 * i}) (global.get ${name}))" for i, name in enumerate(STATE_FIELDS)),
        4,
    )
    reload = statements(
        (f"(global.set ${name} (i32.load $in (i32.const {S_STATE + 4 * i})))" for i, name in enumerate(STATE_FIELDS)),
        4,
    )
    # a guest importing them gets the Wasm ones (_adapter_json, _adapter_set_record), which call Python when stuck
    get = "" if shape.get_record else "\n  (func $get_record (result i64) (unreachable))"
    set_ = "" if shape.set_record else "\n  (func $set_record (param i32 i32))"
    return f"""  (func $spill
    {spill})
  (func $reload
    {reload}){get}{set_}"""


def _other_functions(shape: AdapterShape) -> str:
    headers = demand(shape, "headers") + readable(shape, "headers")
    return f"""  (func $get_header (param $np i32) (param $nl i32) (result i64)
    (local $e i32) (local $h i32)
    {headers}
    {check_guest("(local.get $np)", "(local.get $nl)")}
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
          (return (call $give_in (i32.load $ch offset=8 (local.get $h)) (i32.load $ch offset=12 (local.get $h))))))
      (br $next)))
    (i64.const 0))
  (func $set_header (param $np i32) (param $nl i32) (param $dp i32) (param $dl i32)
    (local $h i32) (local $k i32) (local $v i32) (local $e i32)
    {headers}
    (local.set $k (call $take (local.get $np) (local.get $nl)))
    (local.set $v (call $take (local.get $dp) (local.get $dl)))
    (local.set $h (i32.shl (global.get $hn) (i32.const 4)))
    (local.set $e (i32.add (local.get $h) (i32.const 16)))
    {ensure("ch", "(local.get $e)")}
    (i32.store $ch (local.get $h) (local.get $k))
    (i32.store $ch offset=4 (local.get $h) (local.get $nl))
    (i32.store $ch offset=8 (local.get $h) (local.get $v))
    (i32.store $ch offset=12 (local.get $h) (local.get $dl))
    (global.set $hn (i32.add (global.get $hn) (i32.const 1)))
    (global.set $mask (i32.or (global.get $mask) (i32.const {SET_HEADERS}))))
  (func $get_timestamp (result i64)
    {demand(shape, "timestamp")}
    (if (result i64) (global.get $tsn) (then (i64.const -1)) (else (global.get $ts))))
  (func $set_timestamp (param $t i64)
    (global.set $ts (local.get $t))
    (global.set $tsn (i64.eq (local.get $t) (i64.const -1)))
    (global.set $mask (i32.or (global.get $mask) (i32.const {SET_TIMESTAMP}))))
  (func $get_partition (result i32) {demand(shape, "partition")} (global.get $part))
  (func $get_offset (result i64) {demand(shape, "offset")} (global.get $offs))
  (func $get_config (param $np i32) (param $nl i32) (result i64)
    (local $e i32) (local $n i32) (local $t i32)
    {check_guest("(local.get $np)", "(local.get $nl)")}
    (local.set $n (i32.load $in (i32.const {D_CONFIG})))
    (local.set $t (i32.load $in offset=4 (i32.const {D_CONFIG})))
    (block $none (loop $next
      (br_if $none (i32.ge_u (local.get $e) (local.get $n)))
      (if (i32.and
            (i32.eq (i32.load $in offset=4 (local.get $t)) (local.get $nl))
            (call $eq_in_guest (i32.load $in (local.get $t)) (local.get $np) (local.get $nl)))
        (then (return (call $give_in (i32.load $in offset=8 (local.get $t)) (i32.load $in offset=12 (local.get $t))))))
      (local.set $t (i32.add (local.get $t) (i32.const 16)))
      (local.set $e (i32.add (local.get $e) (i32.const 1)))
      (br $next)))
    (i64.const 0))
  (func $drop_record
    (global.set $drop (i32.const 1))
    (i32.store $in (i32.const {C_IRREGULAR}) (i32.const 1)))
  (func $emit_record
    (i32.store $in (i32.const {C_IRREGULAR}) (i32.const 1))
    (call $output))"""
