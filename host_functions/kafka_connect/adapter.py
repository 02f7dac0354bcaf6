"""The adapter module's text, generated for one guest shape.

Everything per record is written out inline for the columns the shape uses
(Cranelift does not inline calls): loading a row is a few loads into
globals, a setter is one bounds check and one copy straight to the output
memory, committing a row is a few stores.  See :mod:`host_functions.kafka_connect.layout`
and ``ADAPTER.md`` for the layout; :func:`adapter_wat` is the entry point.
"""

from __future__ import annotations

from host_functions.kafka_connect._adapter_json import json_functions, json_memory
from host_functions.kafka_connect._adapter_set_record import set_record_functions
from host_functions.kafka_connect.adapter_calls import (
    BINARY,
    CURSOR,
    Binary,
    check_guest,
    copy,
    ensure,
    extra_imports,
    helpers,
    host_functions,
    statements,
)
from host_functions.kafka_connect.layout import (
    C_CURSORS,
    C_ERR_LEN,
    C_ERR_PTR,
    C_FLAGS,
    C_OUT,
    C_ROW,
    C_STATUS,
    D_HEADERS,
    D_HEADERS_BAD,
    D_MAX_OUTPUTS,
    D_OFFSET,
    D_PART,
    D_ROW_BASE,
    D_SCRATCH,
    D_TS,
    FAST_FUNCTIONS,
    OUT_HEADER_SIZE,
    OUTPUT_MEMORIES,
    SET_HEADERS,
    TABLE_MEMORIES,
    TIMESTAMP_NULL,
    AdapterShape,
    Status,
)
from host_functions.runtime.host_modules import ADAPTER_MODULE_NAME

__all__ = ["adapter_wat"]

#: Records the per-record tables grow by at a time.
TABLE_STEP = 8192


def adapter_wat(shape: AdapterShape) -> str:
    """The adapter for a guest of the given shape."""
    staged = shape.staged
    parts = [
        _HEADER.format(
            entry_type="(result i64)" if shape.entry_returns_i64 else "",
            dealloc=extra_imports(shape),
            elem=" ".join(f"${f.name}" for f in FAST_FUNCTIONS),
            memories=_memories(),
            globals=_globals(),
        ),
        *(_grow(mem) for mem in ("in", "ch") + OUTPUT_MEMORIES + tuple(TABLE_MEMORIES)),
        _grow_tables(shape),
        helpers(),
        _begin(shape),
        _load_headers() if "headers" in staged else "",
        _output(shape),
        _run(shape),
        host_functions(shape),
        *((json_memory(), json_functions(shape)) if shape.get_record else ()),
        set_record_functions() if shape.set_record else "",
        ")",
    ]
    return "\n".join(part for part in parts if part)


# --- the module's parts ---------------------------------------------------------


def _memories() -> str:
    lines = ['(memory $in (export "in") 1)', '(memory $ch (export "ch") 1)']
    lines += [f'(memory ${m} (export "{m}") 0)' for m in OUTPUT_MEMORIES + tuple(TABLE_MEMORIES)]
    return "\n  ".join(lines)


def _globals() -> str:
    i32 = [
        "row",
        "base",
        "sc0",
        "sc",
        "drop",
        "mask",
        "flags",
        "wo",
        "cap",
        "tsn",
        "part",
        "hn",
        "outs",
        "maxouts",
        "hbad",
        "tsa",
        "tsv",
        "pa",
        "pv",
        "oa",
        "oav",
        "hlo",
        "hko",
        "hkorg",
        "hvo",
        "hvorg",
        "hvval",
    ]
    i32 += [f"{b.g}{suffix}" for b in BINARY for suffix in ("p", "l", "w", "off", "org", "val")]
    i32 += [c[1:] for c in CURSOR.values()]
    lines = [f"(global ${name} (mut i32) (i32.const 0))" for name in i32]
    lines += ["(global $ts (mut i64) (i64.const 0))", "(global $offs (mut i64) (i64.const 0))"]
    return "\n  ".join(lines)


def _grow(mem: str) -> str:
    """``$grow_M(end)``: grow by at least half again (fewer grows), else exactly; OUTPUT_FULL when it cannot."""
    return f"""  (func $grow_{mem} (param $end i32)
    (local $have i32) (local $need i32)
    (local.set $have (memory.size ${mem}))
    (local.set $need (i32.sub (i32.shr_u (i32.add (local.get $end) (i32.const 65535)) (i32.const 16)) (local.get $have)))
    (if (i32.le_s (local.get $need) (i32.const 0)) (then (return)))
    (if (i32.ne (memory.grow ${mem} (select (local.get $need) (i32.shr_u (local.get $have) (i32.const 1))
                                          (i32.gt_u (local.get $need) (i32.shr_u (local.get $have) (i32.const 1)))))
                (i32.const -1))
      (then (return)))
    (if (i32.eq (memory.grow ${mem} (local.get $need)) (i32.const -1))
      (then (i32.store $in (i32.const {C_STATUS}) (i32.const {Status.OUTPUT_FULL.value})) (unreachable))))"""


def _grow_tables(shape: AdapterShape) -> str:
    grows = []
    for name in shape.tables:
        per_record, extra_pages = TABLE_MEMORIES[name]
        extra = 4 if extra_pages else 0
        grows.append(
            f"(call $grow_{name} (i32.add (i32.mul (local.get $cap) (i32.const {per_record})) (i32.const {extra})))"
        )
    return f"""  ;; room for TABLE_STEP more output records in every per-record table
  (func $grow_tables
    (local $cap i32)
    (local.set $cap (i32.add (global.get $cap) (i32.const {TABLE_STEP})))
    {statements(grows, 4)}
    (global.set $cap (local.get $cap)))"""


def _begin(shape: AdapterShape) -> str:
    """Read the descriptors and the committed cursors into globals, once per run."""
    load = lambda at: f"(i32.load $in (i32.const {at}))"  # noqa: E731
    sets = [
        f"(global.set $wo {load(C_OUT)})",
        f"(global.set $flags {load(C_FLAGS)})",
        f"(global.set $sc0 {load(D_SCRATCH)})",
        f"(global.set $base {load(D_ROW_BASE)})",
        f"(global.set $maxouts {load(D_MAX_OUTPUTS)})",
    ]
    sets += [f"(global.set {cursor} {load(C_CURSORS + 4 * i)})" for i, cursor in enumerate(CURSOR.values())]
    for b in BINARY:
        if b.column in shape.staged:
            sets += [f"(global.set ${b.g}off {load(b.descriptor)})", f"(global.set ${b.g}org {load(b.descriptor + 4)})"]
            if b.null_bit is not None:
                sets.append(f"(global.set ${b.g}val {load(b.descriptor + 8)})")
    for column, at, value, valid in (
        ("timestamp", D_TS, "tsa", "tsv"),
        ("partition", D_PART, "pa", "pv"),
        ("offset", D_OFFSET, "oa", "oav"),
    ):
        if column in shape.staged:
            sets += [f"(global.set ${value} {load(at)})", f"(global.set ${valid} {load(at + 4)})"]
    if "headers" in shape.staged:
        for i, name in enumerate(("hlo", "hko", "hkorg", "hvo", "hvorg", "hvval")):
            sets.append(f"(global.set ${name} {load(D_HEADERS + 4 * i)})")
        sets.append(f"(global.set $hbad {load(D_HEADERS_BAD)})")
    return "  (func $begin\n    " + "\n    ".join(sets) + ")"


def _load_row(shape: AdapterShape) -> str:
    """The row's staged columns into globals (locals $a, $s of run)."""
    code = []
    for b in BINARY:
        if b.column not in shape.staged:
            continue
        code.append(f"""(local.set $a (i32.add (global.get ${b.g}off) (i32.shl (local.get $r) (i32.const 2))))
      (local.set $s (i32.load $in (local.get $a)))
      (global.set ${b.g}p (i32.add (global.get ${b.g}org) (local.get $s)))
      (global.set ${b.g}l (i32.sub (i32.load $in offset=4 (local.get $a)) (local.get $s)))""")
        if shape.modifies(b.column):
            code.append(f"(global.set ${b.g}w (i32.const 0))")
        if b.null_bit is not None:
            code.append(f"""(if (global.get ${b.g}val)
        (then (if (i32.eqz (i32.load8_u $in (i32.add (global.get ${b.g}val) (local.get $r))))
          (then (global.set ${b.g}l (i32.const -1))))))""")
    if "timestamp" in shape.staged:
        code.append("""(global.set $ts (i64.load $in (i32.add (global.get $tsa) (i32.shl (local.get $r) (i32.const 3)))))
      (global.set $tsn (i32.const 0))
      (if (global.get $tsv)
        (then (global.set $tsn (i32.eqz (i32.load8_u $in (i32.add (global.get $tsv) (local.get $r)))))))""")
    elif shape.modifies_timestamp:
        code.append("(global.set $tsn (i32.const 1))")
    if "partition" in shape.staged:
        code.append("""(global.set $part (i32.load $in (i32.add (global.get $pa) (i32.shl (local.get $r) (i32.const 2)))))
      (if (global.get $pv)
        (then (if (i32.eqz (i32.load8_u $in (i32.add (global.get $pv) (local.get $r))))
          (then (global.set $part (i32.const -1))))))""")
    if "offset" in shape.staged:
        code.append("""(global.set $offs (i64.load $in (i32.add (global.get $oa) (i32.shl (local.get $r) (i32.const 3)))))
      (if (global.get $oav)
        (then (if (i32.eqz (i32.load8_u $in (i32.add (global.get $oav) (local.get $r))))
          (then (global.set $offs (i64.const -1))))))""")
    if "headers" in shape.staged:
        code.append("(call $load_headers (local.get $r))")
    elif shape.modifies_headers:
        code.append("(global.set $hn (i32.const 0))")
    return "\n      ".join(code)


def _load_headers() -> str:
    """The row's headers into the $ch table: (key ptr, key len, value ptr, value len) in $in."""
    slice_ = """(local.set $a (i32.add (global.get ${off}) (i32.shl (local.get $j) (i32.const 2))))
          (local.set $s (i32.load $in (local.get $a)))
          (local.set $p (i32.add (global.get ${org}) (local.get $s)))
          (local.set $l (i32.sub (i32.load $in offset=4 (local.get $a)) (local.get $s)))"""
    return f"""  (func $load_headers (param $r i32)
    (local $j i32) (local $end i32) (local $h i32) (local $p i32) (local $l i32) (local $a i32) (local $s i32) (local $e i32)
    (global.set $hn (i32.const 0))
    (local.set $j (i32.load $in (i32.add (global.get $hlo) (i32.shl (local.get $r) (i32.const 2)))))
    (local.set $end (i32.load $in offset=4 (i32.add (global.get $hlo) (i32.shl (local.get $r) (i32.const 2)))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $j) (local.get $end)))
      (local.set $h (i32.shl (global.get $hn) (i32.const 4)))
      (local.set $e (i32.add (local.get $h) (i32.const 16)))
      {ensure("ch", "(local.get $e)")}
      {slice_.format(off="hko", org="hkorg")}
      (i32.store $ch (local.get $h) (local.get $p))
      (i32.store $ch offset=4 (local.get $h) (local.get $l))
      {slice_.format(off="hvo", org="hvorg")}
      (if (global.get $hvval)
        (then (if (i32.eqz (i32.load8_u $in (i32.add (global.get $hvval) (local.get $j))))
          (then (local.set $l (i32.const -1))))))
      (i32.store $ch offset=8 (local.get $h) (local.get $p))
      (i32.store $ch offset=12 (local.get $h) (local.get $l))
      (global.set $hn (i32.add (global.get $hn) (i32.const 1)))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $next))))"""


def _output_binary(b: Binary) -> str:
    """A changed column's bytes for the record; an unchanged one outputs nothing (the host keeps the input's)."""
    cursor = CURSOR[b.data]
    null = f"(then (local.set $f (i32.or (local.get $f) (i32.const {b.null_bit}))))" if b.null_bit else "(then)"
    return f"""(if (i32.and (local.get $f) (i32.const {b.set_bit}))
      (then (if (i32.lt_s (global.get ${b.g}l) (i32.const 0))
      {null}
      (else
        (local.set $e (i32.add (global.get {cursor}) (global.get ${b.g}l)))
        (if (global.get ${b.g}w)
          (then (if (i32.ne (global.get ${b.g}p) (global.get {cursor}))
            (then {ensure(b.data, "(local.get $e)")}
                  (memory.copy ${b.data} ${b.data} (global.get {cursor}) (global.get ${b.g}p) (global.get ${b.g}l)))))
          (else {ensure(b.data, "(local.get $e)")}
                {copy(b.data, "in", f"(global.get {cursor})", f"(global.get ${b.g}p)", f"(global.get ${b.g}l)")}))
        (global.set {cursor} (local.get $e))))))
    (i32.store ${b.offsets} offset=4 (i32.shl (local.get $k) (i32.const 2)) (global.get {cursor}))"""


_OUTPUT_HEADERS = """(local.set $x (select (i32.const 0) (global.get $hn) (i32.and (local.get $f) (i32.const {set_bit}))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $x) (global.get $hn)))
      (local.set $h (i32.shl (local.get $x) (i32.const 4)))
      (local.set $kl (i32.load $ch offset=4 (local.get $h)))
      (local.set $vl (i32.load $ch offset=12 (local.get $h)))
      (local.set $e (i32.add (global.get $wohk) (local.get $kl)))
      {ensure_ohk}
      (memory.copy $ohk $in (global.get $wohk) (i32.load $ch (local.get $h)) (local.get $kl))
      (global.set $wohk (local.get $e))
      (if (i32.gt_s (local.get $vl) (i32.const 0))
        (then
          (local.set $e (i32.add (global.get $wohv) (local.get $vl)))
          {ensure_ohv}
          (memory.copy $ohv $in (global.get $wohv) (i32.load $ch offset=8 (local.get $h)) (local.get $vl))
          (global.set $wohv (local.get $e))))
      (local.set $e (i32.add (global.get $woht) (i32.const {size})))
      {ensure_oht}
      (i32.store $oht (global.get $woht) (local.get $kl))
      (i32.store $oht offset=4 (global.get $woht) (local.get $vl))
      (global.set $woht (local.get $e))
      (local.set $x (i32.add (local.get $x) (i32.const 1)))
      (br $next)))
    (i32.store $ohc offset=4 (i32.shl (local.get $k) (i32.const 2)) (i32.shr_u (global.get $woht) (i32.const 3)))"""


_OUTPUT_LOCALS = (
    "(local $k i32) (local $f i32) (local $e i32) (local $x i32) (local $h i32) (local $kl i32) (local $vl i32)"
)


def _output_body(shape: AdapterShape) -> str:
    """Append the current record (parent, flags, changed columns) to the output memories."""
    body = [_output_binary(b) for b in BINARY if shape.modifies(b.column)]
    if shape.modifies_timestamp:
        body.append(f"""(i64.store $ots (i32.shl (local.get $k) (i32.const 3)) (global.get $ts))
    (if (global.get $tsn) (then (local.set $f (i32.or (local.get $f) (i32.const {TIMESTAMP_NULL})))))""")
    if shape.modifies_headers:
        body.append(
            _OUTPUT_HEADERS.format(
                size=OUT_HEADER_SIZE,
                set_bit=SET_HEADERS,
                **{f"ensure_{m}": ensure(m, "(local.get $e)") for m in ("ohk", "ohv", "oht")},
            )
        )
    # without emit_record a record outputs one record at most: nothing to count
    count = (
        f"""(global.set $outs (i32.add (global.get $outs) (i32.const 1)))
    (if (i32.gt_u (global.get $outs) (global.get $maxouts))
      (then (i32.store $in (i32.const {C_STATUS}) (i32.const {Status.TOO_MANY_OUTPUTS.value})) (unreachable)))
    """
        if shape.emits
        else ""
    )
    return f"""{count}(local.set $k (global.get $wo))
    (if (i32.ge_u (local.get $k) (global.get $cap)) (then (call $grow_tables)))
    (i32.store $op (i32.shl (local.get $k) (i32.const 2)) (i32.add (global.get $row) (global.get $base)))
    (local.set $f (global.get $mask))
    {chr(10).join("    " + part for part in body).strip()}
    (i32.store8 $of (local.get $k) (local.get $f))
    (global.set $flags (i32.or (global.get $flags) (local.get $f)))
    (global.set $wo (i32.add (local.get $k) (i32.const 1)))"""


def _output(shape: AdapterShape) -> str:
    """``$output`` for emit_record; run has the same code inline."""
    return f"""  (func $output
    {_OUTPUT_LOCALS}
    {_output_body(shape)})"""


def _call_entry(shape: AdapterShape) -> str:
    if not shape.entry_returns_i64:
        return "(call $entry)"
    dealloc = "(call $dealloc (local.get $ptr) (local.get $len))" if shape.has_dealloc else ""
    return f"""(local.set $res (call $entry))
      (local.set $len (i32.wrap_i64 (local.get $res)))
      (local.set $ptr (i32.wrap_i64 (i64.shr_u (local.get $res) (i64.const 32))))
      (if (i32.lt_s (local.get $len) (i32.const 0))
        (then
          (local.set $mlen (i32.and (local.get $len) (i32.const 0x7fffffff)))
          {check_guest("(local.get $ptr)", "(local.get $mlen)")}
          (local.set $e (i32.add (global.get $sc) (local.get $mlen)))
          {ensure("in", "(local.get $e)")}
          (memory.copy $in $g (global.get $sc) (local.get $ptr) (local.get $mlen))
          (i32.store $in (i32.const {C_ERR_PTR}) (global.get $sc))
          (i32.store $in (i32.const {C_ERR_LEN}) (local.get $mlen))
          (i32.store $in (i32.const {C_STATUS}) (i32.const {Status.GUEST_ERROR.value}))
          {dealloc}
          (return (i32.add (local.get $r) (i32.const 1)))))
      {dealloc}"""


def _commit(shape: AdapterShape) -> str:
    used = {b.data for b in BINARY if shape.modifies(b.column)}
    if shape.modifies_headers:
        used |= {"ohk", "ohv", "oht"}
    # The row counter moves on with the commit, before the loop's back edge:
    # wasmtime may interrupt there (an epoch check), and a host that resumed
    # at a row whose outputs are already committed would output them twice.
    stores = [
        f"(i32.store $in (i32.const {C_OUT}) (global.get $wo))",
        f"(i32.store $in (i32.const {C_FLAGS}) (global.get $flags))",
        f"(i32.store $in (i32.const {C_ROW}) (i32.add (local.get $r) (i32.const 1)))",
    ]
    stores += [
        f"(i32.store $in (i32.const {C_CURSORS + 4 * i}) (global.get {CURSOR[name]}))"
        for i, name in enumerate(OUTPUT_MEMORIES)
        if name in used
    ]
    return "\n      ".join(stores)


def _run(shape: AdapterShape) -> str:
    mask = (
        "(global.set $mask (i32.const 0))"
        if any(shape.modifies(c) for c in ("key", "value", "topic", "headers", "timestamp"))
        else ""
    )
    return f"""  ;; run rows [start, end); returns the row to resume at (end when all ran)
  (func (export "run") (param $start i32) (param $end i32) (result i32)
    (local $r i32) (local $res i64) (local $ptr i32) (local $len i32) (local $mlen i32)
    (local $a i32) (local $s i32) {_OUTPUT_LOCALS}
    (i32.store $in (i32.const {C_STATUS}) (i32.const {Status.OK.value}))
    (call $begin)
    (local.set $r (local.get $start))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $r) (local.get $end)))
      (i32.store $in (i32.const {C_ROW}) (local.get $r))
      (global.set $row (local.get $r))
      (global.set $sc (global.get $sc0))
      (global.set $drop (i32.const 0))
      {"(global.set $outs (i32.const 0))" if shape.emits else ""}
      {mask}
      {_load_row(shape)}
      {_call_entry(shape)}
      (if (i32.eqz (global.get $drop)) (then {_output_body(shape)}))
      {_commit(shape)}
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $next)))
    (local.get $end))"""


_HEADER = f"""(module ${ADAPTER_MODULE_NAME}
  (import "guest" "memory" (memory $g 0))
  (import "guest" "alloc" (func $alloc (param i32) (result i32)))
  (import "guest" "entry" (func $entry {{entry_type}}))
  (import "shim" "table" (table $table 0 funcref))
  {{dealloc}}
  {{memories}}
  {{globals}}
  (elem (table $table) (i32.const 0) func {{elem}})
"""
