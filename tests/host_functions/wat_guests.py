"""Small WAT guests, each a readable specification of one ABI behaviour.

``guest(body, imports=...)`` wraps a body in a module with a bump allocator
(``alloc`` grows memory as needed; every entry call starts by resetting it,
which frees everything the previous record allocated) and ``dealloc``.
"""

from __future__ import annotations

from host_functions.kafka_connect.abi import BY_NAME


def _import(name: str) -> str:
    f = BY_NAME[name]
    params = f" (param {' '.join(f.params)})" if f.params else ""
    results = f" (result {' '.join(f.results)})" if f.results else ""
    return f'(import "env" "{name}" (func ${name}{params}{results}))'


def guest(body: str, imports: tuple[str, ...] = (), extra: str = "") -> str:
    """A module importing ``imports`` from ``env``, exporting ``memory``/``alloc``/``dealloc``."""
    return f"""(module
  {" ".join(_import(name) for name in imports)}
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


def _entry(
    name: str, body: str, locals_: str = "(local $k i64) (local $v i64) (local $t i64)", result: str = ""
) -> str:
    return f'(func (export "{name}") {result} {locals_}\n    (call $reset)\n    {body})'


_STRINGS = """(data (i32.const 16) "h") (data (i32.const 32) "copy") (data (i32.const 48) "topic")
  (data (i32.const 64) "suffix") (data (i32.const 80) "missing") (data (i32.const 96) "hello from the guest")
  (data (i32.const 128) "{\\"topic\\":\\"routed\\",\\"key\\":\\"a2V5\\",\\"headers\\":{\\"x\\":\\"eQ==\\"}}")"""
#: length of the JSON document at 128
SET_RECORD_JSON_LEN = len('{"topic":"routed","key":"a2V5","headers":{"x":"eQ=="}}')

#: key <-> value (a null one reads as 0 and is set back as empty bytes).
SWAP = guest(
    _entry(
        "swap",
        """(local.set $k (call $get_key)) (local.set $v (call $get_value))
    (call $set_key (call $ptr (local.get $v)) (call $len (local.get $v)))
    (call $set_value (call $ptr (local.get $k)) (call $len (local.get $k)))""",
    ),
    imports=("get_key", "set_key", "get_value", "set_value"),
    extra=_STRINGS,
)

#: appends header "copy" = last header "h", and header "topic" = the topic.
HEADERS = guest(
    _entry(
        "headers",
        """(local.set $v (call $get_header (i32.const 16) (i32.const 1)))
    (call $set_header (i32.const 32) (i32.const 4) (call $ptr (local.get $v)) (call $len (local.get $v)))
    (local.set $t (call $get_topic))
    (call $set_header (i32.const 48) (i32.const 5) (call $ptr (local.get $t)) (call $len (local.get $t)))""",
    ),
    imports=("get_header", "set_header", "get_topic"),
    extra=_STRINGS,
)

#: routes to the topic named by the value; timestamp += offset + partition.
ROUTE_TIMESTAMP = guest(
    _entry(
        "route",
        """(local.set $v (call $get_value))
    (call $set_topic (call $ptr (local.get $v)) (call $len (local.get $v)))
    (call $set_timestamp (i64.add (call $get_timestamp)
      (i64.add (call $get_offset) (i64.extend_i32_s (call $get_partition)))))""",
    ),
    imports=("get_value", "set_topic", "get_timestamp", "set_timestamp", "get_offset", "get_partition"),
    extra=_STRINGS,
)

#: drops records whose value is empty/null or starts with an even byte; else
#: outputs three: the record, value = config "suffix", then key = old value.
FILTER_FAN_OUT = guest(
    _entry(
        "filter_fan_out",
        """(local.set $v (call $get_value))
    (if (i32.eqz (call $len (local.get $v))) (then (call $drop_record) (return)))
    (if (i32.eqz (i32.and (i32.load8_u (call $ptr (local.get $v))) (i32.const 1)))
      (then (call $drop_record) (return)))
    (call $emit_record)
    (local.set $t (call $get_config (i32.const 64) (i32.const 6)))
    (call $set_value (call $ptr (local.get $t)) (call $len (local.get $t)))
    (call $emit_record)
    (call $set_key (call $ptr (local.get $v)) (call $len (local.get $v)))""",
    ),
    imports=("get_value", "set_value", "set_key", "drop_record", "emit_record", "get_config"),
    extra=_STRINGS,
)

#: error convention: an odd-length value is returned as the error message.
ERROR_ON_ODD = guest(
    _entry(
        "check",
        """(local.set $v (call $get_value))
    (if (i32.and (call $len (local.get $v)) (i32.const 1))
      (then (return (i64.or (i64.shl (i64.extend_i32_u (call $ptr (local.get $v))) (i64.const 32))
                            (i64.extend_i32_u (i32.or (call $len (local.get $v)) (i32.const 0x80000000)))))))
    (call $set_value (call $ptr (local.get $v)) (call $len (local.get $v)))
    (i64.const 0)""",
        result="(result i64)",
    ),
    imports=("get_value", "set_value"),
    extra=_STRINGS,
)

#: logs its value at the level given by config "level" missing -> info, and the constant greeting at warn.
LOGGER = guest(
    _entry(
        "log_it",
        """(local.set $v (call $get_value))
    (call $log (i32.const 1) (call $ptr (local.get $v)) (call $len (local.get $v)))
    (call $log (i32.const 2) (i32.const 96) (i32.const 20))""",
    ),
    imports=("get_value", "log"),
    extra=_STRINGS,
)

#: value = the record as JSON (get_record).
RECORD_TO_VALUE = guest(
    _entry(
        "to_json",
        """(local.set $v (call $get_record))
    (call $set_value (call $ptr (local.get $v)) (call $len (local.get $v)))""",
    ),
    imports=("get_record", "set_value"),
    extra=_STRINGS,
)

#: set_record with a constant document (topic routed, key "key", one header x=y, no value).
SET_RECORD = guest(
    _entry("replace", f"(call $set_record (i32.const 128) (i32.const {SET_RECORD_JSON_LEN}))"),
    imports=("set_record",),
    extra=_STRINGS,
)

#: set_record with the value as the document (most values are not one: the record fails).
VALUE_AS_RECORD = guest(
    _entry(
        "value_as_record",
        """(local.set $v (call $get_value))
    (call $set_record (call $ptr (local.get $v)) (call $len (local.get $v)))""",
    ),
    imports=("get_value", "set_record"),
    extra=_STRINGS,
)

#: changes the record (key, header h and topic = value), reads it as JSON, sets
#: it back, emits it, then appends header "copy" = last "h", routes to the key
#: and sets the value to the JSON: get/set_record must see and leave the state
#: the other host functions see.
RECORD_ROUND_TRIP = guest(
    _entry(
        "round_trip",
        """(local.set $v (call $get_value))
    (call $set_key (call $ptr (local.get $v)) (call $len (local.get $v)))
    (call $set_header (i32.const 16) (i32.const 1) (call $ptr (local.get $v)) (call $len (local.get $v)))
    (call $set_topic (call $ptr (local.get $v)) (call $len (local.get $v)))
    (local.set $t (call $get_record))
    (call $set_record (call $ptr (local.get $t)) (call $len (local.get $t)))
    (call $emit_record)
    (local.set $k (call $get_header (i32.const 16) (i32.const 1)))
    (call $set_header (i32.const 32) (i32.const 4) (call $ptr (local.get $k)) (call $len (local.get $k)))
    (local.set $k (call $get_key))
    (call $set_topic (call $ptr (local.get $k)) (call $len (local.get $k)))
    (call $set_value (call $ptr (local.get $t)) (call $len (local.get $t)))""",
    ),
    imports=(
        "get_value",
        "set_value",
        "set_key",
        "get_key",
        "set_header",
        "get_header",
        "get_record",
        "set_record",
        "emit_record",
        "set_topic",
    ),
    extra=_STRINGS,
)

#: value = config "missing" (absent: reads as 0, set back as empty bytes).
MISSING_CONFIG = guest(
    _entry(
        "missing",
        """(local.set $v (call $get_config (i32.const 80) (i32.const 7)))
    (call $set_value (call $ptr (local.get $v)) (call $len (local.get $v)))""",
    ),
    imports=("get_config", "set_value"),
    extra=_STRINGS,
)


def _hostile(name: str, misbehave: str, result: str = "", ok: str = "") -> str:
    """A guest that upper-cases values but misbehaves on a value starting with 'b'."""
    return guest(
        _entry(
            name,
            f"""(local.set $v (call $get_value))
    (if (i32.eq (i32.load8_u (call $ptr (local.get $v))) (i32.const 98))
      (then {misbehave}))
    (call $upper_in_place (call $ptr (local.get $v)) (call $len (local.get $v)))
    (call $set_value (call $ptr (local.get $v)) (call $len (local.get $v))) {ok}""",
            result=result,
        ),
        imports=("get_value", "set_value"),
    )


INFINITE_LOOP = _hostile("spin", "(loop $forever (br $forever))")
MEMORY_BOMB = _hostile(
    "bomb", "(loop $more (br_if $more (i32.ne (memory.grow (i32.const 16)) (i32.const -1)))) (unreachable)"
)
TRAP = _hostile("boom", "(unreachable)")
OUT_OF_BOUNDS = _hostile("oob", "(call $set_value (i32.const 0x7fff0000) (i32.const 100)) (return)")
GARBAGE_RETURN = _hostile(
    "garbage", "(return (i64.const 0xdeadbeefdeadbeef))", result="(result i64)", ok="(i64.const 0)"
)
