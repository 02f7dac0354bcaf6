"""The records of a RecordBatch, written and read in Wasm: no Python per record.

Records in a RecordBatch follow one another, each behind its length varint::

    length: varint, attributes: int8, timestampDelta: varlong, offsetDelta: varint, body

(the body is key, value and headers, :mod:`host_functions.kafka_wire`).
Writing them is a varint per field and a copy per body; reading them is a
walk from one to the next.  Both are loops per record, so both run in this
small module of our own (not the guest's), one call per batch:

* ``encode`` writes the records of ``count`` bodies (Arrow offsets and bytes,
  staged in ``$g``), their timestamps and offsets 0, 1, ...; ``encode_kv``
  the same for records without headers straight from the key and value
  columns (no bodies built first);
* ``decode`` walks ``count`` records in ``$g`` and parses each body with the
  Redpanda adapter's body parser (:func:`host_functions.redpanda.adapter.body_parser_wat`)
  into the output memories laid out as Arrow wants them; per record it keeps
  the timestamp and offset deltas in ``$in``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa
import wasmtime

from host_functions.redpanda import adapter as A
from host_functions.redpanda.batches import harvest_outputs, output_bytes_column, output_headers_column
from host_functions.runtime.engine import WasmRuntime
from host_functions.runtime.memory import GuestMemory

__all__ = ["DecodedRecords", "RecordCodec"]

_PAGE = 1 << 16
#: Per decoded record in ``$in`` (after the control block): timestamp delta, offset delta.
_DELTAS = np.dtype([("timestamp_delta", "<i8"), ("offset_delta", "<i8")])
_DELTAS_AT = 128
#: Bytes a record adds to its body at most: length (5), attributes (1), timestamp delta (10), offset delta (5).
_MAX_RECORD_OVERHEAD = 21
#: ... and to its key and value when the host writes the body too: their lengths (5 each), the header count (1).
_MAX_KV_OVERHEAD = _MAX_RECORD_OVERHEAD + 11

CODEC_WAT = f"""(module
  (memory $g (export "g") 1)
  (memory $in (export "in") 1)
{A.body_parser_wat()}
  (func $zigzag (param $v i64) (result i64)
    (i64.xor (i64.shl (local.get $v) (i64.const 1)) (i64.shr_s (local.get $v) (i64.const 63))))
  (func $size (param $z i64) (result i32)
    (local $n i32)
    (local.set $n (i32.const 1))
    (block $done (loop $next
      (br_if $done (i64.lt_u (local.get $z) (i64.const 128)))
      (local.set $z (i64.shr_u (local.get $z) (i64.const 7)))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $next)))
    (local.get $n))
  (func $put (param $p i32) (param $z i64) (result i32)
    (block $done (loop $next
      (br_if $done (i64.lt_u (local.get $z) (i64.const 128)))
      (i32.store8 $g (local.get $p) (i32.or (i32.wrap_i64 (local.get $z)) (i32.const 128)))
      (local.set $z (i64.shr_u (local.get $z) (i64.const 7)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br $next)))
    (i32.store8 $g (local.get $p) (i32.wrap_i64 (local.get $z)))
    (i32.add (local.get $p) (i32.const 1)))
  ;; the records of $count bodies (i32 offsets at $offsets, bytes at $data, i64 millis at $millis) at $out
  (func (export "encode") (param $count i32) (param $offsets i32) (param $data i32) (param $millis i32)
    (param $base i64) (param $out i32) (result i32)
    (local $i i32) (local $start i32) (local $size i32) (local $ts i64) (local $off i64)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
      (local.set $start (i32.load $g (i32.add (local.get $offsets) (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $size (i32.sub (i32.load $g offset=4 (i32.add (local.get $offsets) (i32.shl (local.get $i) (i32.const 2))))
                                (local.get $start)))
      (local.set $ts (call $zigzag (i64.sub (i64.load $g (i32.add (local.get $millis) (i32.shl (local.get $i) (i32.const 3))))
                                            (local.get $base))))
      (local.set $off (call $zigzag (i64.extend_i32_u (local.get $i))))
      (local.set $out (call $put (local.get $out) (call $zigzag (i64.extend_i32_u
        (i32.add (i32.add (i32.const 1) (local.get $size)) (i32.add (call $size (local.get $ts)) (call $size (local.get $off))))))))
      (i32.store8 $g (local.get $out) (i32.const 0))
      (local.set $out (call $put (call $put (i32.add (local.get $out) (i32.const 1)) (local.get $ts)) (local.get $off)))
      (memory.copy $g $g (local.get $out) (i32.add (local.get $data) (local.get $start)) (local.get $size))
      (local.set $out (i32.add (local.get $out) (local.get $size)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $out))
  ;; a sized field (zigzag length, -1: null) and its bytes from $data + start, at $out
  (func $put_field (param $out i32) (param $len i32) (param $from i32) (result i32)
    (local.set $out (call $put (local.get $out) (call $zigzag (i64.extend_i32_s (local.get $len)))))
    (if (i32.gt_s (local.get $len) (i32.const 0))
      (then (memory.copy $g $g (local.get $out) (local.get $from) (local.get $len))
            (local.set $out (i32.add (local.get $out) (local.get $len)))))
    (local.get $out))
  ;; the records of $count keys and values without headers, straight from their columns: per record an i32
  ;; start and length (-1: null) of each, at $ks $kl $vs $vl; bytes at $kd and $vd; i64 millis at $millis
  (func (export "encode_kv") (param $count i32) (param $ks i32) (param $kl i32) (param $kd i32) (param $vs i32)
    (param $vl i32) (param $vd i32) (param $millis i32) (param $base i64) (param $out i32) (result i32)
    (local $i i32) (local $at i32) (local $klen i32) (local $vlen i32) (local $ts i64) (local $off i64) (local $size i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
      (local.set $at (i32.shl (local.get $i) (i32.const 2)))
      (local.set $klen (i32.load $g (i32.add (local.get $kl) (local.get $at))))
      (local.set $vlen (i32.load $g (i32.add (local.get $vl) (local.get $at))))
      (local.set $ts (call $zigzag (i64.sub (i64.load $g (i32.add (local.get $millis) (i32.shl (local.get $i) (i32.const 3))))
                                            (local.get $base))))
      (local.set $off (call $zigzag (i64.extend_i32_u (local.get $i))))
      ;; attributes, deltas, key, value, header count (0)
      (local.set $size (i32.add (i32.add (i32.const 2) (i32.add (call $size (local.get $ts)) (call $size (local.get $off))))
        (i32.add (i32.add (call $size (call $zigzag (i64.extend_i32_s (local.get $klen))))
                          (select (local.get $klen) (i32.const 0) (i32.gt_s (local.get $klen) (i32.const 0))))
                 (i32.add (call $size (call $zigzag (i64.extend_i32_s (local.get $vlen))))
                          (select (local.get $vlen) (i32.const 0) (i32.gt_s (local.get $vlen) (i32.const 0)))))))
      (local.set $out (call $put (local.get $out) (call $zigzag (i64.extend_i32_u (local.get $size)))))
      (i32.store8 $g (local.get $out) (i32.const 0))
      (local.set $out (call $put (call $put (i32.add (local.get $out) (i32.const 1)) (local.get $ts)) (local.get $off)))
      (local.set $out (call $put_field (local.get $out) (local.get $klen)
        (i32.add (local.get $kd) (i32.load $g (i32.add (local.get $ks) (local.get $at))))))
      (local.set $out (call $put_field (local.get $out) (local.get $vlen)
        (i32.add (local.get $vd) (i32.load $g (i32.add (local.get $vs) (local.get $at))))))
      (i32.store8 $g (local.get $out) (i32.const 0))
      (local.set $out (i32.add (local.get $out) (i32.const 1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $out))
  ;; walk $count records in [p, end) of $g; returns how many were whole (a malformed one stops the walk)
  (func (export "decode") (param $p i32) (param $end i32) (param $count i32) (result i32)
    (local $i i32) (local $n i32) (local $record_end i32) (local $value i64) (local $at i32)
    (call $resume)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
      (local.set $n (call $length (local.get $p) (local.get $end)))
      (br_if $done (i32.lt_s (local.get $n) (i32.const 1)))
      (local.set $p (i32.add (local.get $p) (global.get $varint_size)))
      (local.set $record_end (i32.add (local.get $p) (local.get $n)))
      (local.set $at (i32.add (i32.const {_DELTAS_AT}) (i32.shl (local.get $i) (i32.const 4))))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))  ;; attributes (unused in v2 records)
      (local.set $value (call $varint (local.get $p) (local.get $record_end)))
      (br_if $done (i32.eqz (global.get $varint_size)))
      (i64.store $in (local.get $at) (local.get $value))
      (local.set $p (i32.add (local.get $p) (global.get $varint_size)))
      (local.set $value (call $varint (local.get $p) (local.get $record_end)))
      (br_if $done (i32.eqz (global.get $varint_size)))
      (i64.store $in offset=8 (local.get $at) (local.get $value))
      (local.set $p (i32.add (local.get $p) (global.get $varint_size)))
      (br_if $done (i32.gt_u (local.get $p) (local.get $record_end)))
      (i32.store $in (i32.const {A.C_READ}) (i32.add (local.get $i) (i32.const 1)))
      (global.set $record_outputs (i32.const 0))
      (br_if $done (i32.lt_s (call $write (local.get $p) (i32.sub (local.get $record_end) (local.get $p)) (i32.const 0))
                             (i32.const 0)))
      (call $commit)
      (local.set $p (local.get $record_end))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $i))
)"""


@dataclasses.dataclass
class DecodedRecords:
    """The records of one batch: deltas per record, and key, value and headers as Arrow columns."""

    timestamp_deltas: np.ndarray
    offset_deltas: np.ndarray
    keys: pa.Array
    values: pa.Array
    headers: pa.Array


class RecordCodec:
    """One codec instance (not thread-safe: one per runner)."""

    def __init__(self, rt: WasmRuntime) -> None:
        self._store = wasmtime.Store(rt.engine)
        self._store.set_epoch_deadline(
            1 << 62
        )  # our own loops end; a watchdog tick meant for a guest must not stop them
        exports = wasmtime.Instance(self._store, rt.compile(CODEC_WAT.encode()), []).exports(self._store)
        self._memories = {
            name: GuestMemory(exports[name], self._store, f"the codec's ${name}")
            for name in ("g", "in", *A.OUTPUT_MEMORIES)
        }
        self._encode, self._encode_kv, self._decode = exports["encode"], exports["encode_kv"], exports["decode"]

    def encode(self, bodies: pa.Array, millis: np.ndarray, base: int) -> bytes:
        """The records of ``bodies`` (a binary array), timestamps ``millis`` (-1: none) as deltas from ``base``."""
        count = len(bodies)
        offsets = np.frombuffer(bodies.buffers()[1], dtype=np.int32, count=count + 1, offset=bodies.offset * 4)
        first, last = int(offsets[0]), int(offsets[-1])
        data_at = _align(4 * (count + 1))
        millis_at = _align(data_at + last - first)
        out_at = _align(millis_at + 8 * count)
        g = self._reserve("g", out_at + (last - first) + _MAX_RECORD_OVERHEAD * count)
        g.write(0, offsets - first)
        if last > first:
            g.write_from(data_at, bodies.buffers()[2].address + first, last - first)
        g.write(millis_at, np.ascontiguousarray(millis, dtype=np.int64))
        end = self._encode(self._store, count, 0, data_at, millis_at, base, out_at)
        return g.read(out_at, end - out_at)

    def encode_kv(self, keys: pa.Array, values: pa.Array, millis: np.ndarray, base: int) -> bytes:
        """As :meth:`encode` for records without headers, from the key and value columns (binary arrays)."""
        count = len(values)
        key_starts, key_lengths, key_data = _sized_column(keys)
        value_starts, value_lengths, value_data = _sized_column(values)
        millis = np.ascontiguousarray(millis, dtype=np.int64)
        parts = [key_starts, key_lengths, value_starts, value_lengths, key_data, value_data, millis]
        at, places = 0, []
        for part in parts:
            places.append(at)
            at = _align(at + part.nbytes)
        g = self._reserve("g", at + key_data.nbytes + value_data.nbytes + _MAX_KV_OVERHEAD * count)
        for part, place in zip(parts, places):
            g.write(place, part)
        ks, kl, vs, vl, kd, vd, ms = places
        end = self._encode_kv(self._store, count, ks, kl, kd, vs, vl, vd, ms, base, at)
        return g.read(at, end - at)

    def decode(self, data: memoryview, count: int) -> tuple[DecodedRecords, int]:
        """``(records, whole)``: the first ``whole`` records of ``data`` (all ``count`` unless one is malformed)."""
        size = len(data)
        g = self._reserve("g", size)
        control = self._reserve("in", _DELTAS_AT + _DELTAS.itemsize * count)
        control.zero(0, _DELTAS_AT)
        control.set_i32(A.C_MAX_OUTPUTS, 1)
        g.write(0, data)
        whole = self._decode(self._store, 0, size, count)
        deltas = np.empty(whole, dtype=_DELTAS)
        control.copy_to(deltas.ctypes.data, _DELTAS_AT, whole * _DELTAS.itemsize)
        outputs = harvest_outputs(self._word, self._copy)
        records = DecodedRecords(
            deltas["timestamp_delta"],
            deltas["offset_delta"],
            output_bytes_column(outputs.meta, outputs.keys, "key_end", 1),
            output_bytes_column(outputs.meta, outputs.values, "value_end", 2),
            output_headers_column(outputs),  # names still bytes: assemble_outputs checks they are UTF-8
        )
        return records, whole

    def _reserve(self, memory: str, size: int) -> GuestMemory:
        """``memory``, grown to hold ``size`` bytes."""
        view = self._memories[memory]
        view.grow_to(size)
        return view

    def _word(self, offset: int) -> int:
        return self._memories["in"].i32(offset)

    def _copy(self, memory: str, nbytes: int) -> np.ndarray:
        out = np.empty(nbytes, dtype=np.uint8)
        self._memories[memory].copy_to(out.ctypes.data, 0, nbytes)
        return out


def _sized_column(column: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(starts, lengths, data)`` of a binary array: i32 starts into ``data``, i32 lengths (-1: null), the bytes."""
    count = len(column)
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int32, count=count + 1, offset=column.offset * 4)
    first, last = int(offsets[0]), int(offsets[-1])
    lengths = np.diff(offsets)
    if column.null_count:
        lengths = np.where(column.is_null().to_numpy(zero_copy_only=False), -1, lengths).astype(np.int32)
    data_buffer = column.buffers()[2]
    data = (
        np.frombuffer(data_buffer, dtype=np.uint8)[first:last]
        if data_buffer is not None and last > first
        else np.zeros(0, np.uint8)
    )
    return (offsets[:-1] - first).astype(np.int32), lengths.astype(np.int32, copy=False), data


def _align(offset: int) -> int:
    return (offset + 7) & ~7
