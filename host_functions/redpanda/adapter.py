"""The Wasm that serves a Redpanda guest's per-record host functions.

A Redpanda guest asks for each record (``read_next_record``) and hands back
each output (``write_record``); both run once per record, so both are served
here, in Wasm, with no Python call: the batch's record bodies sit staged in
the adapter's ``$in`` memory (Arrow offsets and bytes, one copy per batch),
``read_next_record`` copies one into the guest's buffer, and
``write_record`` parses the guest's body (Kafka's v2 encoding, see
:mod:`host_functions.kafka_wire`) straight into output memories laid out as
Arrow wants them.  Only ``read_batch_header`` — once per batch — calls Python (after committing
the batch's last outputs).

As in the Kafka Connect fast path (:mod:`host_functions.kafka_connect.layout`), the guest
imports these functions from a *shim* whose table the adapter fills, which
breaks the cycle "the guest needs the host functions, the host functions need
the guest's memory".  The adapter also serves two WASI functions the way
Redpanda's broker does: ``clock_time_get`` reads the current record's
timestamp (the guest sees no real clock) and ``poll_oneoff`` never sleeps
(a sleep moves the guest's monotonic clock instead: a guest cannot block
where the time limit cannot reach it).

Outputs of the record being processed stay uncommitted until the guest asks
for the next record or the next batch; after a trap the host takes what was
committed and fails the current record.

Layout: the control block below (byte offsets in ``$in``); per output record
``$om`` holds :data:`RECORD_META`, per output header ``$hm`` holds
:data:`HEADER_META`; key, value, header name and header value bytes each go
to a memory of their own (``ok``, ``ov``, ``hk``, ``hv``).
"""

from __future__ import annotations

import enum

import numpy as np

from host_functions.kafka_connect.adapter_calls import bytes_equal, check_guest, ensure, fail_record, statements
from host_functions.kafka_connect.layout import C_ERR_LEN, C_ERR_PTR, C_STATUS, Status

__all__ = [
    "adapter_wat",
    "shim_wat",
    "SHIM_FUNCTIONS",
    "RECORD_META",
    "HEADER_META",
    "OUTPUT_MEMORIES",
    "VARINT_WAT",
    "body_parser_wat",
    "C_COMMITTED",
    "C_READ",
    "C_MAX_OUTPUTS",
    "CONTROL_SIZE",
]

# --- control block (in $in; the host stages data after CONTROL_SIZE) ---------------
C_READ = 0  # records handed to the guest so far in this batch
C_CURRENT = 4  # the record being processed: the watchdog watches it move
C_COUNT = 8  # records staged
C_MAX_OUTPUTS = 12  # max.outputs.per.record
C_TOPIC_COUNT = 16  # output topics (index 0 is the default)
C_TOPIC_TABLE = 20  # ptr to (name ptr, name len) pairs in $in
D_BODIES = 24  # offsets ptr, data origin (host_functions.runtime.staging.Layout.place_binary)
D_TIMESTAMPS = 44  # ptr to i64 epoch millis
D_OFFSETS = 48  # ptr to i64 offsets
# C_STATUS (32), C_ERR_PTR (36), C_ERR_LEN (40) are shared with the Kafka Connect adapter's helpers
C_COMMITTED = 64  # records, key bytes, value bytes, headers, header name bytes, header value bytes
C_WALLTIME = 96  # i64 epoch millis of the current record (clock_time_get's realtime clock)
C_MONOTONIC = 104  # i64 nanoseconds, moved 1 ms per read (as Redpanda does)
CONTROL_SIZE = 256  # the control block's bytes: staged data starts after them


class RedpandaStatus(enum.IntEnum):
    """Why the adapter stopped a record, in C_STATUS: the shared codes plus Redpanda's own."""

    BAD_POINTER = Status.BAD_POINTER
    OUTPUT_FULL = Status.OUTPUT_FULL
    TOO_MANY_OUTPUTS = Status.TOO_MANY_OUTPUTS
    #: the guest wrote a record before reading one
    WRITE_BEFORE_READ = max(Status) + 1


STATUS_BAD_POINTER = RedpandaStatus.BAD_POINTER
STATUS_OUTPUT_FULL = RedpandaStatus.OUTPUT_FULL
STATUS_TOO_MANY_OUTPUTS = RedpandaStatus.TOO_MANY_OUTPUTS
STATUS_WRITE_BEFORE_READ = RedpandaStatus.WRITE_BEFORE_READ

#: Return codes of the ABI (Redpanda's transform_module.cc).
NO_ACTIVE_TRANSFORM, INVALID_BUFFER, INVALID_WRITE = -1, -2, -3

OUTPUT_MEMORIES = ("ok", "ov", "hk", "hv", "om", "hm")
#: One output record in ``$om``: its input row, output topic index, flags (1: null key, 2: null value)
#: and the end cursors of its key, value and headers.
RECORD_META = np.dtype(
    [
        ("parent", "<i4"),
        ("topic", "<i4"),
        ("flags", "<i4"),
        ("key_end", "<i4"),
        ("value_end", "<i4"),
        ("header_end", "<i4"),
    ]
)
#: One output header in ``$hm``: end cursors of its name and value, flags (1: null value).
HEADER_META = np.dtype([("key_end", "<i4"), ("value_end", "<i4"), ("flags", "<i4")])
_CURSORS = ("out", "ok", "ov", "h", "hk", "hv")  # the write cursors, in C_COMMITTED order

#: (module, name, params, results) of everything the shim exports, in table order.
SHIM_FUNCTIONS = (
    ("redpanda_transform", "check_abi_version_1", (), ()),
    ("redpanda_transform", "check_abi_version_2", (), ()),
    ("redpanda_transform", "read_batch_header", ("i32",) * 10, ("i32",)),
    ("redpanda_transform", "read_next_record", ("i32",) * 5, ("i32",)),
    ("redpanda_transform", "write_record", ("i32",) * 2, ("i32",)),
    ("redpanda_transform", "write_record_with_options", ("i32",) * 4, ("i32",)),
    ("wasi_snapshot_preview1", "clock_time_get", ("i32", "i64", "i32"), ("i32",)),
    ("wasi_snapshot_preview1", "poll_oneoff", ("i32",) * 4, ("i32",)),
)
_TABLE_NAMES = (
    "$check_abi",
    "$check_abi",
    "$read_batch_header",
    "$read_next_record",
    "$write_record",
    "$write_record_with_options",
    "$clock_time_get",
    "$poll_oneoff",
)


def _signature(params: tuple[str, ...], results: tuple[str, ...]) -> str:
    return "".join(f" (param {p})" for p in params) + "".join(f" (result {r})" for r in results)


def shim_wat() -> str:
    """Exports that only ``call_indirect`` through a table the adapter fills."""
    funcs = []
    for index, (_, name, params, results) in enumerate(SHIM_FUNCTIONS):
        args = " ".join(f"(local.get {i})" for i in range(len(params)))
        funcs.append(
            f'(func (export "{name}"){_signature(params, results)}\n'
            f"    (call_indirect{_signature(params, results)} {args} (i32.const {index})))"
        )
    return f'(module\n  (table (export "table") {len(SHIM_FUNCTIONS)} funcref)\n  ' + "\n  ".join(funcs) + "\n)"


def adapter_wat() -> str:
    """The adapter module (the same for every Redpanda guest)."""
    return "\n".join(
        [
            f"""(module
  (import "guest" "memory" (memory $g 0))
  (import "shim" "table" (table {len(SHIM_FUNCTIONS)} funcref))
  (import "host" "read_batch_header" (func $host_read_batch_header{_signature(("i32",) * 10, ("i32",))}))
  (memory $in (export "in") 1)
  (elem (i32.const 0) func {" ".join(_TABLE_NAMES)})
  (func $check_abi)
  ;; the batch is done: commit its last record's outputs, then the host hands them over and waits
  (func $read_batch_header{_signature(("i32",) * 10, ("i32",))}
    (call $commit)
    (call $host_read_batch_header {" ".join(f"(local.get {i})" for i in range(10))}))""",
            body_parser_wat(),
            bytes_equal("topic_equal", "g", "in"),
            _read_next_record(),
            _write_record_with_options(),
            _wasi(),
            ")",
        ]
    )


def body_parser_wat() -> str:
    """``$write(buf, len, topic)`` and what it needs: record bodies in ``$g`` parsed into the output memories.

    The module around it declares ``$g`` and ``$in`` (the control block); a
    body is written for the record ``C_READ - 1`` and committed by ``$commit``.
    proxy-wasm's record codec parses the records a filter forwards with it.
    """
    memories = "\n  ".join(f'(memory ${m} (export "{m}") 0)' for m in OUTPUT_MEMORIES)
    cursors = "\n  ".join(f"(global $w_{c} (mut i32) (i32.const 0))" for c in _CURSORS)
    return "\n".join(
        [
            f"""  {memories}
  {cursors}
  (global $record_outputs (mut i32) (i32.const 0))
  (global $varint_size (mut i32) (i32.const 0))""",
            *(_grow(memory) for memory in OUTPUT_MEMORIES),
            _COMMIT_RESUME,
            VARINT_WAT,
            _write(),
        ]
    )


def _grow(memory: str) -> str:
    """``$grow_M(end)``: room for ``end`` bytes, growing by half again at least; a full memory fails the record."""
    return f"""  (func $grow_{memory} (param $end i32)
    (local $need i32) (local $have i32)
    (local.set $have (memory.size ${memory}))
    (local.set $need (i32.sub (i32.shr_u (i32.add (local.get $end) (i32.const 65535)) (i32.const 16)) (local.get $have)))
    (if (i32.le_s (local.get $need) (i32.const 0)) (then (return)))
    (if (i32.ne (memory.grow ${memory} (select (local.get $need) (i32.shr_u (local.get $have) (i32.const 1))
                                              (i32.gt_u (local.get $need) (i32.shr_u (local.get $have) (i32.const 1)))))
                (i32.const -1))
      (then (return)))
    (if (i32.eq (memory.grow ${memory} (local.get $need)) (i32.const -1))
      (then {fail_record(STATUS_OUTPUT_FULL, "(local.get $end)", "(i32.const 0)")})))"""


_COMMIT = statements(
    (f"(i32.store $in (i32.const {C_COMMITTED + 4 * i}) (global.get $w_{c}))" for i, c in enumerate(_CURSORS)), 4
)
_RESUME = statements(
    (f"(global.set $w_{c} (i32.load $in (i32.const {C_COMMITTED + 4 * i})))" for i, c in enumerate(_CURSORS)), 4
)
_COMMIT_RESUME = f"""  ;; the record before the current one is done: its outputs become the host's
  (func $commit
    {_COMMIT})
  ;; a batch starts from what the host left committed (zero once it took the outputs)
  (func $resume
    {_RESUME})"""

VARINT_WAT = """  ;; a zigzag varint at [p, end) of guest memory; $varint_size 0 when it is incomplete or too long
  (func $varint (param $p i32) (param $end i32) (result i64)
    (local $acc i64) (local $i i32) (local $b i32)
    (global.set $varint_size (i32.const 0))
    (loop $next
      (if (i32.ge_u (i32.add (local.get $p) (local.get $i)) (local.get $end)) (then (return (i64.const 0))))
      (if (i32.ge_u (local.get $i) (i32.const 10)) (then (return (i64.const 0))))
      (local.set $b (i32.load8_u $g (i32.add (local.get $p) (local.get $i))))
      (local.set $acc (i64.or (local.get $acc)
        (i64.shl (i64.extend_i32_u (i32.and (local.get $b) (i32.const 0x7f)))
                 (i64.extend_i32_u (i32.mul (local.get $i) (i32.const 7))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.and (local.get $b) (i32.const 0x80))))
    (global.set $varint_size (local.get $i))
    (i64.xor (i64.shr_u (local.get $acc) (i64.const 1)) (i64.sub (i64.const 0) (i64.and (local.get $acc) (i64.const 1)))))
  ;; a length varint at p: -2 (not valid) unless complete, >= -1 and within end"""
VARINT_WAT += """
  (func $length (param $p i32) (param $end i32) (result i32)
    (local $n i64)
    (local.set $n (call $varint (local.get $p) (local.get $end)))
    (if (i32.eqz (global.get $varint_size)) (then (return (i32.const -2))))
    (if (i64.lt_s (local.get $n) (i64.const -1)) (then (return (i32.const -2))))
    (if (i64.gt_s (local.get $n)
                  (i64.extend_i32_u (i32.sub (local.get $end) (i32.add (local.get $p) (global.get $varint_size)))))
      (then (return (i32.const -2))))
    (i32.wrap_i64 (local.get $n)))"""


def _read_next_record() -> str:
    record = "(i32.shl (local.get $n) (i32.const 3))"
    return f"""  (func $read_next_record (param $attr i32) (param $ts i32) (param $off i32) (param $buf i32) (param $len i32)
    (result i32)
    (local $n i32) (local $at i32) (local $start i32) (local $size i32) (local $millis i64)
    (local.set $n (i32.load $in (i32.const {C_READ})))
    (if (i32.ge_u (local.get $n) (i32.load $in (i32.const {C_COUNT}))) (then (return (i32.const {NO_ACTIVE_TRANSFORM}))))
    (if (local.get $n) (then (call $commit)) (else (call $resume)))
    (global.set $record_outputs (i32.const 0))
    (i32.store $in (i32.const {C_CURRENT}) (local.get $n))
    (local.set $at (i32.add (i32.load $in (i32.const {D_BODIES})) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $start (i32.load $in (local.get $at)))
    (local.set $size (i32.sub (i32.load $in offset=4 (local.get $at)) (local.get $start)))
    (if (i32.lt_u (local.get $len) (local.get $size)) (then (return (i32.const {INVALID_BUFFER}))))
    {check_guest("(local.get $buf)", "(local.get $size)", STATUS_BAD_POINTER)}
    {check_guest("(local.get $attr)", "(i32.const 1)", STATUS_BAD_POINTER)}
    {check_guest("(local.get $ts)", "(i32.const 8)", STATUS_BAD_POINTER)}
    {check_guest("(local.get $off)", "(i32.const 8)", STATUS_BAD_POINTER)}
    (memory.copy $g $in (local.get $buf)
      (i32.add (i32.load $in (i32.const {D_BODIES + 4})) (local.get $start)) (local.get $size))
    (local.set $millis (i64.load $in (i32.add (i32.load $in (i32.const {D_TIMESTAMPS})) {record})))
    (i32.store8 $g (local.get $attr) (i32.const 0))
    (i64.store $g (local.get $ts) (local.get $millis))
    (i64.store $g (local.get $off) (i64.load $in (i32.add (i32.load $in (i32.const {D_OFFSETS})) {record})))
    (i64.store $in (i32.const {C_WALLTIME}) (local.get $millis))
    (i32.store $in (i32.const {C_READ}) (i32.add (local.get $n) (i32.const 1)))
    (local.get $size))"""


def _copy_field(memory: str, cursor: str) -> str:
    """Copy ``$n`` (>= 0) bytes at ``$p`` to ``memory`` at ``cursor`` and move both on."""
    return (
        f"(local.set $end_at (i32.add (local.get {cursor}) (local.get $n)))\n"
        f"        {ensure(memory, '(local.get $end_at)')}\n"
        f"        (memory.copy ${memory} $g (local.get {cursor}) (local.get $p) (local.get $n))\n"
        f"        (local.set {cursor} (local.get $end_at))\n"
        f"        (local.set $p (i32.add (local.get $p) (local.get $n)))"
    )


def _length_or_invalid() -> str:
    return (
        f"(local.set $n (call $length (local.get $p) (local.get $end)))\n"
        f"        (if (i32.eq (local.get $n) (i32.const -2)) (then (return (i32.const {INVALID_BUFFER}))))\n"
        f"        (local.set $p (i32.add (local.get $p) (global.get $varint_size)))"
    )


def _write() -> str:
    """``$write(buf, len, topic)``: parse one output body into the output memories (-2 when malformed)."""
    meta = RECORD_META.itemsize
    header = HEADER_META.itemsize
    return f"""  (func $write_record (param $buf i32) (param $len i32) (result i32)
    (call $write (local.get $buf) (local.get $len) (i32.const 0)))
  (func $write (param $buf i32) (param $len i32) (param $topic i32) (result i32)
    (local $p i32) (local $end i32) (local $n i32) (local $end_at i32) (local $flags i32) (local $count i64)
    (local $ok i32) (local $ov i32) (local $h i32) (local $hk i32) (local $hv i32) (local $at i32)
    {check_guest("(local.get $buf)", "(local.get $len)", STATUS_BAD_POINTER)}
    (if (i32.eqz (i32.load $in (i32.const {C_READ})))
      (then {fail_record(STATUS_WRITE_BEFORE_READ, "(local.get $buf)", "(local.get $len)")}))
    (if (i32.ge_u (global.get $record_outputs) (i32.load $in (i32.const {C_MAX_OUTPUTS})))
      (then {fail_record(STATUS_TOO_MANY_OUTPUTS, "(local.get $buf)", "(local.get $len)")}))
    (local.set $p (local.get $buf))
    (local.set $end (i32.add (local.get $buf) (local.get $len)))
    (local.set $ok (global.get $w_ok)) (local.set $ov (global.get $w_ov)) (local.set $h (global.get $w_h))
    (local.set $hk (global.get $w_hk)) (local.set $hv (global.get $w_hv))
    {_length_or_invalid()}
    (if (i32.lt_s (local.get $n) (i32.const 0))
      (then (local.set $flags (i32.const 1)))
      (else {_copy_field("ok", "$ok")}))
    {_length_or_invalid()}
    (if (i32.lt_s (local.get $n) (i32.const 0))
      (then (local.set $flags (i32.or (local.get $flags) (i32.const 2))))
      (else {_copy_field("ov", "$ov")}))
    (local.set $count (call $varint (local.get $p) (local.get $end)))
    (if (i32.or (i32.eqz (global.get $varint_size)) (i64.lt_s (local.get $count) (i64.const 0)))
      (then (return (i32.const {INVALID_BUFFER}))))
    (local.set $p (i32.add (local.get $p) (global.get $varint_size)))
    (block $headers_done (loop $next_header
      (br_if $headers_done (i64.eqz (local.get $count)))
      {_length_or_invalid()}
      ;; a null header name (-1, which Redpanda accepts) is read as empty
      (if (i32.gt_s (local.get $n) (i32.const 0)) (then {_copy_field("hk", "$hk")}))
      {_length_or_invalid()}
      (local.set $at (i32.mul (local.get $h) (i32.const {header})))
      (local.set $end_at (i32.add (local.get $at) (i32.const {header})))
      {ensure("hm", "(local.get $end_at)")}
      (i32.store $hm offset=8 (local.get $at) (i32.lt_s (local.get $n) (i32.const 0)))
      (i32.store $hm (local.get $at) (local.get $hk))
      (if (i32.ge_s (local.get $n) (i32.const 0)) (then {_copy_field("hv", "$hv")}))
      (i32.store $hm offset=4 (i32.mul (local.get $h) (i32.const {header})) (local.get $hv))
      (local.set $h (i32.add (local.get $h) (i32.const 1)))
      (local.set $count (i64.sub (local.get $count) (i64.const 1)))
      (br $next_header)))
    (if (i32.ne (local.get $p) (local.get $end)) (then (return (i32.const {INVALID_BUFFER}))))
    (local.set $at (i32.mul (global.get $w_out) (i32.const {meta})))
    (local.set $end_at (i32.add (local.get $at) (i32.const {meta})))
    {ensure("om", "(local.get $end_at)")}
    (i32.store $om (local.get $at) (i32.sub (i32.load $in (i32.const {C_READ})) (i32.const 1)))
    (i32.store $om offset=4 (local.get $at) (local.get $topic))
    (i32.store $om offset=8 (local.get $at) (local.get $flags))
    (i32.store $om offset=12 (local.get $at) (local.get $ok))
    (i32.store $om offset=16 (local.get $at) (local.get $ov))
    (i32.store $om offset=20 (local.get $at) (local.get $h))
    (global.set $w_out (i32.add (global.get $w_out) (i32.const 1)))
    (global.set $w_ok (local.get $ok)) (global.set $w_ov (local.get $ov)) (global.set $w_h (local.get $h))
    (global.set $w_hk (local.get $hk)) (global.set $w_hv (local.get $hv))
    (global.set $record_outputs (i32.add (global.get $record_outputs) (i32.const 1)))
    (local.get $len))"""


def _write_record_with_options() -> str:
    """Options are empty (the default topic) or 0x01 and a sized topic name, which must be an output topic."""
    return f"""  (func $write_record_with_options (param $buf i32) (param $len i32) (param $opts i32) (param $opts_len i32)
    (result i32)
    (local $p i32) (local $end i32) (local $n i32) (local $i i32) (local $entry i32)
    {check_guest("(local.get $opts)", "(local.get $opts_len)", STATUS_BAD_POINTER)}
    (if (i32.eqz (local.get $opts_len)) (then (return (call $write (local.get $buf) (local.get $len) (i32.const 0)))))
    (if (i32.ne (i32.load8_u $g (local.get $opts)) (i32.const 1)) (then (return (i32.const {INVALID_BUFFER}))))
    (local.set $p (i32.add (local.get $opts) (i32.const 1)))
    (local.set $end (i32.add (local.get $opts) (local.get $opts_len)))
    (local.set $n (call $length (local.get $p) (local.get $end)))
    (if (i32.lt_s (local.get $n) (i32.const 0)) (then (return (i32.const {INVALID_BUFFER}))))
    (local.set $p (i32.add (local.get $p) (global.get $varint_size)))
    (if (i32.ne (i32.add (local.get $p) (local.get $n)) (local.get $end)) (then (return (i32.const {INVALID_BUFFER}))))
    (block $unknown (loop $next
      (br_if $unknown (i32.ge_u (local.get $i) (i32.load $in (i32.const {C_TOPIC_COUNT}))))
      (local.set $entry (i32.add (i32.load $in (i32.const {C_TOPIC_TABLE})) (i32.shl (local.get $i) (i32.const 3))))
      (if (i32.eq (i32.load $in offset=4 (local.get $entry)) (local.get $n))
        (then (if (call $topic_equal (local.get $p) (i32.load $in (local.get $entry)) (local.get $n))
          (then (return (call $write (local.get $buf) (local.get $len) (local.get $i)))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.const {INVALID_WRITE}))"""


_EFAULT, _EINVAL, _ENOSYS = 21, 28, 52


def _wasi() -> str:
    """``clock_time_get`` and ``poll_oneoff`` as Redpanda's broker serves them."""
    return f"""  ;; realtime: the current record's timestamp; the others: 1 ms more at every reading
  (func $clock_time_get (param $id i32) (param $precision i64) (param $out i32) (result i32)
    (local $now i64)
    (if (i64.gt_u (i64.add (i64.extend_i32_u (local.get $out)) (i64.const 8))
                  (i64.shl (i64.extend_i32_u (memory.size $g)) (i64.const 16)))
      (then (return (i32.const {_EFAULT}))))
    (if (i32.eqz (local.get $id))
      (then (i64.store $g (local.get $out) (i64.mul (i64.load $in (i32.const {C_WALLTIME})) (i64.const 1000000)))
            (return (i32.const 0))))
    (if (i32.gt_u (local.get $id) (i32.const 3)) (then (return (i32.const {_EINVAL}))))
    (local.set $now (i64.load $in (i32.const {C_MONOTONIC})))
    (i64.store $g (local.get $out) (local.get $now))
    (i64.store $in (i32.const {C_MONOTONIC}) (i64.add (local.get $now) (i64.const 1000000)))
    (i32.const 0))
  ;; a sleep moves the guest's monotonic clock on instead of blocking (relative, or to an absolute time)
  (func $sleep (param $sub i32)
    (local $timeout i64) (local $now i64)
    (local.set $timeout (i64.load $g offset=24 (local.get $sub)))
    (local.set $now (i64.load $in (i32.const {C_MONOTONIC})))
    (i64.store $in (i32.const {C_MONOTONIC})
      (if (result i64) (i32.and (i32.load16_u $g offset=40 (local.get $sub)) (i32.const 1))
        (then (select (local.get $timeout) (local.get $now) (i64.gt_u (local.get $timeout) (local.get $now))))
        (else (i64.add (local.get $now) (local.get $timeout))))))
  ;; clock subscriptions complete at once (no real sleeping); fd subscriptions are not supported
  (func $poll_oneoff (param $in_ptr i32) (param $out_ptr i32) (param $n i32) (param $ret i32) (result i32)
    (local $i i32) (local $sub i32) (local $event i32) (local $tag i32) (local $limit i64)
    (local.set $limit (i64.shl (i64.extend_i32_u (memory.size $g)) (i64.const 16)))
    (if (i32.or (i32.or
          (i64.gt_u (i64.add (i64.extend_i32_u (local.get $in_ptr)) (i64.mul (i64.extend_i32_u (local.get $n)) (i64.const 48)))
                    (local.get $limit))
          (i64.gt_u (i64.add (i64.extend_i32_u (local.get $out_ptr)) (i64.mul (i64.extend_i32_u (local.get $n)) (i64.const 32)))
                    (local.get $limit)))
          (i64.gt_u (i64.add (i64.extend_i32_u (local.get $ret)) (i64.const 4)) (local.get $limit)))
      (then (return (i32.const {_EFAULT}))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $sub (i32.add (local.get $in_ptr) (i32.mul (local.get $i) (i32.const 48))))
      (local.set $event (i32.add (local.get $out_ptr) (i32.mul (local.get $i) (i32.const 32))))
      (local.set $tag (i32.load8_u $g offset=8 (local.get $sub)))
      (if (i32.gt_u (local.get $tag) (i32.const 2)) (then (return (i32.const {_ENOSYS}))))
      (if (i32.eqz (local.get $tag)) (then (call $sleep (local.get $sub))))
      (i64.store $g (local.get $event) (i64.load $g (local.get $sub)))
      (i32.store16 $g offset=8 (local.get $event) (select (i32.const 0) (i32.const {_ENOSYS}) (i32.eqz (local.get $tag))))
      (i32.store8 $g offset=10 (local.get $event) (local.get $tag))
      (i64.store $g offset=16 (local.get $event) (i64.const 0))
      (i32.store16 $g offset=24 (local.get $event) (i32.const 0))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.store $g (local.get $ret) (local.get $n))
    (i32.const 0))"""


# The shared helpers write these offsets; the layout above keeps them free.
assert (C_STATUS, C_ERR_PTR, C_ERR_LEN) == (32, 36, 40)
