"""``get_record`` in Wasm: the record's JSON document built by the adapter.

Byte for byte what :func:`host_functions.kafka_connect.record_json.record_json` makes
(``json.dumps`` with ``ensure_ascii``, compact separators): ``headers`` (names
in first-seen order, the last value of each name; null for a null value),
``topic``, then ``key`` and ``value`` when not null, bytes in standard base64.
Only ASCII topics and header names are escaped here (quotes, backslashes and
control characters, as ``json.dumps`` does); any other byte hands the record
to Python, which decodes, escapes and reports invalid UTF-8 like the
reference path.
"""

from __future__ import annotations

from host_functions.kafka_connect.adapter_calls import bytes_equal, demand, ensure, readable
from host_functions.kafka_connect.layout import AdapterShape

__all__ = ["json_memory", "json_functions", "FALLBACK"]

#: Fixed pieces of the document; a segment of the adapter's ``$tx`` memory.
_PIECES = ('{"headers":{', '},"topic":"', '","key":"', '","value":"', '"}', "null")
_AT = {piece: sum(len(p) for p in _PIECES[:i]) for i, piece in enumerate(_PIECES)}

#: get_record handed to Python (the state spilled first).
FALLBACK = "(call $spill) (return (call $give_in (global.get $sc) (call $py_get_record)))"


def json_memory() -> str:
    text = "".join(_PIECES).replace("\\", "\\\\").replace('"', '\\"')
    return f'(memory $tx 1)\n  (data (memory $tx) (i32.const 0) "{text}")'


def _piece(piece: str) -> str:
    return (
        f"(memory.copy $in $tx (local.get $d) (i32.const {_AT[piece]}) (i32.const {len(piece)})) "
        f"(local.set $d (i32.add (local.get $d) (i32.const {len(piece)})))"
    )


def _put(byte: str) -> str:
    return (
        f"(i32.store8 $in (local.get $d) (i32.const {ord(byte)})) (local.set $d (i32.add (local.get $d) (i32.const 1)))"
    )


def _to_in(prefix: str, memory: str) -> str:
    """Copy a key/value/topic the guest set (it sits in its output memory) to scratch, so all reads are in $in."""
    return f"""(local.set ${prefix}p (global.get ${prefix}p))
    (if (i32.and (global.get ${prefix}w) (i32.gt_s (global.get ${prefix}l) (i32.const 0)))
      (then (memory.copy $in ${memory} (local.get $at) (local.get ${prefix}p) (global.get ${prefix}l))
            (local.set ${prefix}p (local.get $at))
            (local.set $at (i32.add (local.get $at) (global.get ${prefix}l)))))"""


def _positive(expr: str) -> str:
    return f"(select {expr} (i32.const 0) (i32.gt_s {expr} (i32.const 0)))"


def json_functions(shape: AdapterShape) -> str:
    """``$get_record`` and its helpers (the shape imports Python's get_record for the fallback)."""
    return f"""  ;; 1 when the n bytes at p are all ASCII
  (func $ascii (param $p i32) (param $n i32) (result i32)
    (local $e i32)
    (local.set $e (i32.add (local.get $p) (local.get $n)))
    (block $no (loop $next
      (if (i32.ge_u (local.get $p) (local.get $e)) (then (return (i32.const 1))))
      (br_if $no (i32.ge_u (i32.load8_u $in (local.get $p)) (i32.const 128)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br $next)))
    (i32.const 0))

  {bytes_equal("eq_in", "in", "in")}

  ;; header entries h and i (offsets in $ch) have the same name
  (func $same_name (param $h i32) (param $i i32) (result i32)
    (if (result i32) (i32.ne (i32.load $ch offset=4 (local.get $h)) (i32.load $ch offset=4 (local.get $i)))
      (then (i32.const 0))
      (else (call $eq_in (i32.load $ch (local.get $h)) (i32.load $ch (local.get $i)) (i32.load $ch offset=4 (local.get $h))))))

  (func $hex (param $v i32) (result i32)
    (select (i32.add (local.get $v) (i32.const 48)) (i32.add (local.get $v) (i32.const 87))
            (i32.lt_u (local.get $v) (i32.const 10))))

  ;; the JSON string body of n ASCII bytes at p, written at d; returns the end
  (func $escape (param $p i32) (param $n i32) (param $d i32) (result i32)
    (local $e i32) (local $c i32) (local $s i32)
    (local.set $e (i32.add (local.get $p) (local.get $n)))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $p) (local.get $e)))
      (local.set $c (i32.load8_u $in (local.get $p)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (if (i32.and (i32.ge_u (local.get $c) (i32.const 32)) (i32.lt_u (local.get $c) (i32.const 127)))
        (then
          (if (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
            (then {_put(chr(92))}))
          (i32.store8 $in (local.get $d) (local.get $c))
          (local.set $d (i32.add (local.get $d) (i32.const 1)))
          (br $next)))
      ;; a control character or DEL: \\b \\t \\n \\f \\r, else \\u00XX (lowercase hex)
      (local.set $s (i32.add (i32.add (i32.mul (i32.eq (local.get $c) (i32.const 8)) (i32.const 98))
                                      (i32.mul (i32.eq (local.get $c) (i32.const 9)) (i32.const 116)))
                             (i32.add (i32.add (i32.mul (i32.eq (local.get $c) (i32.const 10)) (i32.const 110))
                                               (i32.mul (i32.eq (local.get $c) (i32.const 12)) (i32.const 102)))
                                      (i32.mul (i32.eq (local.get $c) (i32.const 13)) (i32.const 114)))))
      (i32.store8 $in (local.get $d) (i32.const 92))
      (if (local.get $s)
        (then (i32.store8 $in offset=1 (local.get $d) (local.get $s))
              (local.set $d (i32.add (local.get $d) (i32.const 2))))
        (else (i32.store8 $in offset=1 (local.get $d) (i32.const 117))
              (i32.store8 $in offset=2 (local.get $d) (i32.const 48))
              (i32.store8 $in offset=3 (local.get $d) (i32.const 48))
              (i32.store8 $in offset=4 (local.get $d) (call $hex (i32.shr_u (local.get $c) (i32.const 4))))
              (i32.store8 $in offset=5 (local.get $d) (call $hex (i32.and (local.get $c) (i32.const 15))))
              (local.set $d (i32.add (local.get $d) (i32.const 6)))))
      (br $next)))
    (local.get $d))

  (func $b64 (param $v i32) (result i32)
    (select (i32.add (local.get $v) (i32.const 65))
      (select (i32.add (local.get $v) (i32.const 71))
        (select (i32.sub (local.get $v) (i32.const 4))
          (select (i32.const 43) (i32.const 47) (i32.eq (local.get $v) (i32.const 62)))
          (i32.lt_u (local.get $v) (i32.const 62)))
        (i32.lt_u (local.get $v) (i32.const 52)))
      (i32.lt_u (local.get $v) (i32.const 26))))

  ;; n bytes at p in standard base64 (padded), written at d; returns the end
  (func $base64 (param $p i32) (param $n i32) (param $d i32) (result i32)
    (local $e i32) (local $x i32) (local $rest i32)
    (local.set $e (i32.add (local.get $p) (local.get $n)))
    (block $done (loop $next
      (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 3)) (local.get $e)))
      (local.set $x (i32.or (i32.or (i32.shl (i32.load8_u $in (local.get $p)) (i32.const 16))
                                    (i32.shl (i32.load8_u $in offset=1 (local.get $p)) (i32.const 8)))
                            (i32.load8_u $in offset=2 (local.get $p))))
      (i32.store8 $in (local.get $d) (call $b64 (i32.shr_u (local.get $x) (i32.const 18))))
      (i32.store8 $in offset=1 (local.get $d) (call $b64 (i32.and (i32.shr_u (local.get $x) (i32.const 12)) (i32.const 63))))
      (i32.store8 $in offset=2 (local.get $d) (call $b64 (i32.and (i32.shr_u (local.get $x) (i32.const 6)) (i32.const 63))))
      (i32.store8 $in offset=3 (local.get $d) (call $b64 (i32.and (local.get $x) (i32.const 63))))
      (local.set $p (i32.add (local.get $p) (i32.const 3)))
      (local.set $d (i32.add (local.get $d) (i32.const 4)))
      (br $next)))
    (local.set $rest (i32.sub (local.get $e) (local.get $p)))
    (if (local.get $rest)
      (then
        (local.set $x (i32.shl (i32.load8_u $in (local.get $p)) (i32.const 16)))
        (if (i32.eq (local.get $rest) (i32.const 2))
          (then (local.set $x (i32.or (local.get $x) (i32.shl (i32.load8_u $in offset=1 (local.get $p)) (i32.const 8))))))
        (i32.store8 $in (local.get $d) (call $b64 (i32.shr_u (local.get $x) (i32.const 18))))
        (i32.store8 $in offset=1 (local.get $d) (call $b64 (i32.and (i32.shr_u (local.get $x) (i32.const 12)) (i32.const 63))))
        (i32.store8 $in offset=2 (local.get $d)
          (select (call $b64 (i32.and (i32.shr_u (local.get $x) (i32.const 6)) (i32.const 63))) (i32.const 61)
                  (i32.eq (local.get $rest) (i32.const 2))))
        (i32.store8 $in offset=3 (local.get $d) (i32.const 61))
        (local.set $d (i32.add (local.get $d) (i32.const 4)))))
    (local.get $d))

  (func $get_record (result i64)
    (local $kp i32) (local $vp i32) (local $tp i32) (local $at i32) (local $d i32) (local $start i32)
    (local $need i32) (local $e i32) (local $i i32) (local $j i32) (local $h i32) (local $last i32)
    (local $dup i32) (local $first i32) (local $l i32)
    {demand(shape, "key", "value", "topic", "headers")}
    {readable(shape, "key", "value", "headers")}
    (local.set $at (global.get $sc))
    (local.set $e (i32.add (local.get $at) (i32.add (i32.add {_positive("(global.get $kl)")} {_positive("(global.get $vl)")})
                                                   (global.get $tl))))
    {ensure("in", "(local.get $e)")}
    {_to_in("k", "ok")}
    {_to_in("v", "ov")}
    {_to_in("t", "otp")}
    ;; a non-ASCII topic or header name: Python decodes and escapes it
    (if (i32.eqz (call $ascii (local.get $tp) (global.get $tl))) (then {FALLBACK}))
    (local.set $need (i32.add (i32.const 96) (i32.add (i32.mul (global.get $tl) (i32.const 6))
      (i32.mul (i32.add {_positive("(global.get $kl)")} {_positive("(global.get $vl)")}) (i32.const 2)))))
    (block $checked (loop $next
      (br_if $checked (i32.ge_u (local.get $i) (global.get $hn)))
      (local.set $h (i32.shl (local.get $i) (i32.const 4)))
      (if (i32.eqz (call $ascii (i32.load $ch (local.get $h)) (i32.load $ch offset=4 (local.get $h)))) (then {FALLBACK}))
      (local.set $need (i32.add (local.get $need) (i32.add (i32.const 16)
        (i32.add (i32.mul (i32.load $ch offset=4 (local.get $h)) (i32.const 6))
                 (i32.mul {_positive("(i32.load $ch offset=12 (local.get $h))")} (i32.const 2))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.set $start (local.get $at))
    (local.set $d (local.get $at))
    (local.set $e (i32.add (local.get $at) (local.get $need)))
    {ensure("in", "(local.get $e)")}
    {_piece(_PIECES[0])}
    (local.set $first (i32.const 1))
    (local.set $i (i32.const 0))
    (block $headers (loop $header
      (br_if $headers (i32.ge_u (local.get $i) (global.get $hn)))
      (local.set $h (i32.shl (local.get $i) (i32.const 4)))
      ;; a name seen before was written where it first appeared
      (local.set $dup (i32.const 0))
      (local.set $j (i32.const 0))
      (block $seen (loop $earlier
        (br_if $seen (i32.ge_u (local.get $j) (local.get $i)))
        (if (call $same_name (i32.shl (local.get $j) (i32.const 4)) (local.get $h))
          (then (local.set $dup (i32.const 1)) (br $seen)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $earlier)))
      (if (i32.eqz (local.get $dup))
        (then
          (if (i32.eqz (local.get $first)) (then {_put(",")}))
          (local.set $first (i32.const 0))
          {_put('"')}
          (local.set $d (call $escape (i32.load $ch (local.get $h)) (i32.load $ch offset=4 (local.get $h)) (local.get $d)))
          {_put('"')} {_put(":")}
          ;; the value of the last header with this name
          (local.set $last (local.get $h))
          (local.set $j (i32.add (local.get $i) (i32.const 1)))
          (block $scanned (loop $later
            (br_if $scanned (i32.ge_u (local.get $j) (global.get $hn)))
            (if (call $same_name (i32.shl (local.get $j) (i32.const 4)) (local.get $h))
              (then (local.set $last (i32.shl (local.get $j) (i32.const 4)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $later)))
          (local.set $l (i32.load $ch offset=12 (local.get $last)))
          (if (i32.lt_s (local.get $l) (i32.const 0))
            (then {_piece("null")})
            (else {_put('"')}
                  (local.set $d (call $base64 (i32.load $ch offset=8 (local.get $last)) (local.get $l) (local.get $d)))
                  {_put('"')}))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $header)))
    {_piece(_PIECES[1])}
    (local.set $d (call $escape (local.get $tp) (global.get $tl) (local.get $d)))
    (if (i32.ge_s (global.get $kl) (i32.const 0))
      (then {_piece(_PIECES[2])} (local.set $d (call $base64 (local.get $kp) (global.get $kl) (local.get $d)))))
    (if (i32.ge_s (global.get $vl) (i32.const 0))
      (then {_piece(_PIECES[3])} (local.set $d (call $base64 (local.get $vp) (global.get $vl) (local.get $d)))))
    {_piece(_PIECES[4])}
    (call $give_in (local.get $start) (i32.sub (local.get $d) (local.get $start))))"""
