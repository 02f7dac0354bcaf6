"""The fast path's adapter layout: what the generator and the host agree on.

The fast path runs a chunk of records in one Wasm call.  A guest's ``env``
imports are resolved to a *shim*'s exports (each only a ``call_indirect``
through the shim's table); an *adapter* module, generated per guest *shape*
(what it reads and changes), imports the guest's memory, ``alloc``,
``dealloc``, entry function and that table, and fills the table with its own
implementations when it is instantiated.  That breaks the import cycle (guest
needs host functions, host functions need the guest's memory) without a
Python call per record.

This module declares, once, what the generator (:mod:`host_functions.kafka_connect.adapter`
and the ``_adapter_*`` modules it uses) writes and the host
(:mod:`host_functions.kafka_connect._fast_instance`, :mod:`host_functions.kafka_connect.fast_path`) reads: the
control block's byte offsets in ``$in``, the status codes, the output flags,
the memories and the shape.  It imports nothing of the Wasm stack, so the
generator's modules all point down to it.  ``ADAPTER.md`` (next to this file)
documents the layout, region by region, with a glossary of the WAT names.
"""

from __future__ import annotations

import dataclasses
import enum

from host_functions.kafka_connect.abi import ABI_FUNCTIONS, PYTHON_SERVED

# --- control block (in $in) -------------------------------------------------
C_ROW = 0  # the row being run (chunk-relative); the watchdog watches it move
C_OUT = 4  # committed output record count
C_CURSORS = 8  # committed byte cursors of ok, ov, otp, ohk, ohv, oht (6 x i32)
C_STATUS = 32  # a Status
C_ERR_PTR = 36
C_ERR_LEN = 40
C_FLAGS = 44  # OR of the flags of every committed output record
C_IRREGULAR = 48  # set once a record was dropped or emitted: output rows are not the input rows
# column descriptors, written by the host before each run (the host zeroes 64..CONTROL_SIZE)
DESCRIPTORS = 64
D_KEY = 64  # offsets ptr, data origin, validity ptr (0: all valid; bytes 1 valid, 0 null, 2 unreadable)
D_VALUE = 76
D_TOPIC = 88  # offsets ptr, data origin
D_TS = 96  # i64 array ptr, validity ptr
D_PART = 104  # i32 array ptr, validity ptr
D_OFFSET = 112  # i64 array ptr, validity ptr
D_HEADERS = 120  # list offsets ptr, then key offsets/origin, value offsets/origin/validity
D_CONFIG = 144  # entry count, table ptr (entries: name ptr, name len, value ptr, value len)
D_SCRATCH = 152  # where per-record scratch starts
D_ROW_BASE = 156  # added to the chunk-relative row to give an output record's parent
D_MAX_OUTPUTS = 160  # max.outputs.per.record
D_HEADERS_BAD = 164  # per-row bytes, 1 where the header converter failed (0: none failed)
#: A key or value row's byte in its column's validity array: 0 null, 1 valid, or this one,
#: where the column's converter failed on the row (a getter then fails the record).
VALIDITY_UNREADABLE = 2
#: The current record's state, spilled by the adapter around a call to Python
#: (get_record/set_record): key ptr/len/where, value ptr/len/where, topic
#: ptr/len/where (where: 1 = in the column's output memory, 0 = in $in; len -1 =
#: null), header count (entries in $ch), scratch cursor, set mask.
S_STATE = 192
STATE_FIELDS = ("kp", "kl", "kw", "vp", "vl", "vw", "tp", "tl", "tw", "hn", "sc", "mask")
CONTROL_SIZE = 256

#: One output header in ``$oht``: key len, value len (-1 = null).
OUT_HEADER_SIZE = 8


class Status(enum.IntEnum):
    """Why ``run`` stopped, in ``C_STATUS``: the generator writes these, the host reads them."""

    OK = 0
    #: the entry function returned an error; its message is at (C_ERR_PTR, C_ERR_LEN) in ``$in``
    #: and ``run`` returned the row after it (the instance stays usable)
    GUEST_ERROR = 1
    #: the guest passed a (ptr, len), in (C_ERR_PTR, C_ERR_LEN), outside its memory; trap
    BAD_POINTER = 3
    #: the guest's ``alloc`` returned a ptr, in C_ERR_PTR, that cannot hold C_ERR_LEN bytes; trap
    BAD_ALLOC = 4
    #: an output or scratch memory cannot grow (memory.max.bytes); trap
    OUTPUT_FULL = 5
    #: a getter needs input columns that are not staged (their INPUT_BITS in C_ERR_PTR); trap
    NEEDS_INPUT = 6
    #: the record output more than max.outputs.per.record records; trap
    TOO_MANY_OUTPUTS = 7
    #: a getter read a part whose converter failed for this row (its INPUT_BITS in C_ERR_PTR); trap
    INPUT_UNREADABLE = 8


#: Input column -> its bit in a NEEDS_INPUT request.
INPUT_BITS = {"key": 1, "value": 2, "topic": 4, "headers": 8, "timestamp": 16, "partition": 32, "offset": 64}

SET_KEY, SET_VALUE, SET_TOPIC, SET_HEADERS, SET_TIMESTAMP = 1, 2, 4, 8, 16
#: Flags of an output record (one byte in ``$of``) beyond the SET_* bits.
KEY_NULL, VALUE_NULL, TIMESTAMP_NULL = 32, 64, 128

#: Data memories, in the order of the committed cursors.
OUTPUT_MEMORIES = ("ok", "ov", "otp", "ohk", "ohv", "oht")
#: Per-record table memories: name -> (bytes per record, extra pages).  Offsets
#: tables hold the end offset of record k at 4 * (k + 1), so entry 0 stays 0.
TABLE_MEMORIES = {
    "op": (4, 0),
    "of": (1, 0),
    "oko": (4, 1),
    "ovo": (4, 1),
    "otpo": (4, 1),
    "ots": (8, 0),
    "ohc": (4, 1),
}

#: Host functions the adapter implements, in table order.
FAST_FUNCTIONS = tuple(f for f in ABI_FUNCTIONS if f.name not in PYTHON_SERVED)


@dataclasses.dataclass(frozen=True)
class AdapterShape:
    """What the generated adapter must fit: the guest's entry, what it reads and changes."""

    entry_returns_i64: bool
    has_dealloc: bool
    modifies_key: bool
    modifies_value: bool
    modifies_topic: bool
    modifies_headers: bool
    modifies_timestamp: bool
    #: input columns staged in ``$in`` (key, value, topic, headers, timestamp, partition, offset);
    #: a getter of another column asks the host for it (Status.NEEDS_INPUT)
    staged: frozenset[str] = frozenset()
    #: get_record/set_record are imported: the adapter hands the record state to Python for them
    get_record: bool = False
    set_record: bool = False
    #: emit_record is imported: a record may output several records (max.outputs.per.record counts them)
    emits: bool = False

    def modifies(self, column: str) -> bool:
        return getattr(self, f"modifies_{column}")

    @property
    def tables(self) -> tuple[str, ...]:
        """The per-record table memories this shape writes."""
        optional = (
            ("oko", self.modifies_key),
            ("ovo", self.modifies_value),
            ("otpo", self.modifies_topic),
            ("ots", self.modifies_timestamp),
            ("ohc", self.modifies_headers),
        )
        return ("op", "of") + tuple(name for name, on in optional if on)
