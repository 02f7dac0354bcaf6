"""Kafka Produce requests: records in, as a filter sees them on the wire, and records out of the bytes it forwards.

A request the host writes (size-prefixed, as on a socket)::

    size: int32
    header v1: api_key int16 (0: Produce), api_version int16 (PRODUCE_VERSION),
               correlation_id int32 (the frame's number on its connection), client_id string
    transactional_id: nullable string (null), acks: int16, timeout_ms: int32
    topics: [name: string, partitions: [index: int32, records: bytes]]   -- one topic, one partition
    records: one RecordBatch v2 (magic 2, CRC-32C of everything after the CRC field)

Each record of the batch: ``length, attributes, timestampDelta, offsetDelta``
then its body (:mod:`host_functions.kafka_wire`).  The host numbers records
by ``offsetDelta`` (0, 1, ...); a forwarded record's ``offsetDelta`` names the
input record it stands for (several: fan-out; missing: filtered), so a filter
that drops records keeps the others' deltas, as Kafka's compaction does.

Decoding reads what the filter forwarded: any number of requests (versions 3
to 8, whose layout is the same), any topics, partitions and uncompressed
batches, each batch's CRC checked as a broker checks it.  A request that is
not one fails the records of the request it stands for (by correlation id).
"""

from __future__ import annotations

import dataclasses
import struct

import crc32c
import numpy as np
import pyarrow as pa

from host_functions.proxy_wasm._record_codec import DecodedRecords, RecordCodec

__all__ = ["PRODUCE_VERSION", "DecodedPartition", "ForwardedFrame", "decode_forwarded", "encode_produce_request"]

PRODUCE_API_KEY = 0
#: The newest Produce version without flexible (tagged) fields; 3 to 8 share one request layout.
PRODUCE_VERSION = 8
_READABLE_VERSIONS = range(3, 9)
CLIENT_ID = b"spark-smt"
_ACKS_ALL = -1
#: baseOffset, batchLength, partitionLeaderEpoch, magic | crc | attributes, lastOffsetDelta, baseTimestamp,
#: maxTimestamp, producerId, producerEpoch, baseSequence, records count
_BATCH_START = struct.Struct(">qiib")
_BATCH_REST = struct.Struct(">hiqqqhii")
_BATCH_OVERHEAD = _BATCH_START.size + 4 + _BATCH_REST.size  # 61 bytes before the first record
_COMPRESSION_MASK = 0x07


# --- encoding ------------------------------------------------------------------------


def encode_produce_request(
    codec: RecordCodec,
    correlation_id: int,
    topic: str,
    partition: int,
    keys: pa.Array,
    values: pa.Array,
    bodies: pa.Array | None,
    millis: np.ndarray,
    timeout_ms: int,
) -> bytes:
    """One size-prefixed Produce request holding the records as one RecordBatch.

    The records are binary ``keys`` and ``values`` without headers or, when given,
    ``bodies`` (:func:`host_functions.kafka_wire.encode_record_bodies`); ``millis``
    are their timestamps (-1: none).  ``codec`` writes them, in Wasm.
    """
    count = len(values)
    base = int(millis[0])
    if bodies is None:
        records_bytes = codec.encode_kv(keys, values, millis, base)
    else:
        records_bytes = codec.encode(bodies, millis, base)
    rest = _BATCH_REST.pack(0, count - 1, base, int(millis.max()), -1, -1, -1, count)
    crc = crc32c.crc32c(records_bytes, crc32c.crc32c(rest))
    batch_length = len(rest) + 4 + 4 + 1 + len(records_bytes)  # from partitionLeaderEpoch on
    batch_size = 12 + batch_length
    name = topic.encode()
    head = b"".join(
        [
            struct.pack(">hhih", PRODUCE_API_KEY, PRODUCE_VERSION, correlation_id, len(CLIENT_ID)),
            CLIENT_ID,
            struct.pack(">hhii", -1, _ACKS_ALL, timeout_ms, 1),
            struct.pack(">h", len(name)),
            name,
            struct.pack(">iii", 1, partition, batch_size),
            _BATCH_START.pack(0, batch_length, -1, 2),
            struct.pack(">I", crc),
            rest,
        ]
    )
    return b"".join([struct.pack(">i", len(head) + len(records_bytes)), head, records_bytes])


# --- decoding --------------------------------------------------------------------------


@dataclasses.dataclass
class DecodedPartition:
    """The records of one topic-partition of a forwarded request."""

    topic: str
    partition: int
    offset_deltas: np.ndarray
    timestamps: np.ndarray  # epoch millis, -1: none
    records: DecodedRecords


@dataclasses.dataclass
class ForwardedFrame:
    """One forwarded request: its records, or why it is not a Produce request the host can read."""

    correlation_id: int
    partitions: list[DecodedPartition]
    error: str | None = None


class FrameError(Exception):
    """What is wrong with a forwarded request."""


def decode_forwarded(data: bytes | bytearray, codec: RecordCodec) -> tuple[list[ForwardedFrame], str | None]:
    """The requests in ``data`` and, when the stream itself is broken (a size past the end), why.

    A request whose header is readable but whose body is not comes back with its ``error``.
    """
    frames, at, view = [], 0, memoryview(data)
    while at < len(data):
        if at + 4 > len(data):
            return frames, f"{len(data) - at} bytes after the last request are not a request"
        (size,) = struct.unpack_from(">i", data, at)
        if size < 8 or at + 4 + size > len(data):
            return frames, f"a request claims {size} bytes where {len(data) - at - 4} are left"
        frame = view[at + 4 : at + 4 + size]
        api_key, version, correlation_id = struct.unpack_from(">hhi", frame)
        try:
            frames.append(ForwardedFrame(correlation_id, _produce_request(frame, api_key, version, codec)))
        except (FrameError, struct.error) as exc:
            reason = str(exc) if isinstance(exc, FrameError) else "it ends in the middle of a field"
            frames.append(ForwardedFrame(correlation_id, [], reason))
        at += 4 + size
    return frames, None


def _produce_request(frame: memoryview, api_key: int, version: int, codec: RecordCodec) -> list[DecodedPartition]:
    if api_key != PRODUCE_API_KEY:
        raise FrameError(f"the filter forwarded a request with API key {api_key}, not a Produce request")
    if version not in _READABLE_VERSIONS:
        raise FrameError(f"the filter forwarded a Produce request v{version} (only v3 to v8 are read)")
    reader = _Reader(frame, 8)
    reader.string()  # client id
    reader.string()  # transactional id
    reader.skip(2 + 4)  # acks, timeout
    partitions = []
    for _ in range(reader.count("topics")):
        topic = reader.string()
        if topic is None:
            raise FrameError("a topic name is null")
        for _ in range(reader.count("partitions")):
            (index,) = reader.unpack(">i")
            (size,) = reader.unpack(">i")
            if size > 0:
                partitions.extend(_batches(topic, index, reader.take(size), codec))
    if reader.at != len(frame):
        raise FrameError(f"{len(frame) - reader.at} bytes are left after the Produce request")
    return partitions


def _batches(topic: str, partition: int, records: memoryview, codec: RecordCodec) -> list[DecodedPartition]:
    out, at = [], 0
    while at < len(records):
        if at + _BATCH_OVERHEAD > len(records):
            raise FrameError(f"a record batch of {topic}-{partition} is cut short")
        _, batch_length, _, magic = _BATCH_START.unpack_from(records, at)
        end = at + 12 + batch_length
        if magic != 2:
            raise FrameError(f"a record batch of {topic}-{partition} has magic {magic}, not 2")
        if batch_length < _BATCH_OVERHEAD - 12 or end > len(records):
            raise FrameError(f"a record batch of {topic}-{partition} claims {batch_length} bytes")
        (crc,) = struct.unpack_from(">I", records, at + _BATCH_START.size)
        if crc32c.crc32c(records[at + _BATCH_START.size + 4 : end]) != crc:
            raise FrameError(
                f"a record batch of {topic}-{partition} fails its CRC-32C check (corrupt, or rewritten "
                "without a new checksum)"
            )
        attributes, _, base_timestamp, *_, count = _BATCH_REST.unpack_from(records, at + _BATCH_START.size + 4)
        if attributes & _COMPRESSION_MASK:
            raise FrameError(f"a record batch of {topic}-{partition} is compressed, which the host does not read")
        out.append(_records(topic, partition, records[at + _BATCH_OVERHEAD : end], count, base_timestamp, codec))
        at = end
    return out


def _records(
    topic: str, partition: int, data: memoryview, count: int, base_timestamp: int, codec: RecordCodec
) -> DecodedPartition:
    if count < 0:
        raise FrameError(f"a record batch of {topic}-{partition} claims {count} records")
    records, whole = codec.decode(data, count)
    if whole != count:
        raise FrameError(f"record {whole} of a record batch of {topic}-{partition} is malformed")
    timestamps = base_timestamp + records.timestamp_deltas  # -1: no timestamp
    return DecodedPartition(topic, partition, records.offset_deltas, timestamps, records)


class _Reader:
    """Big-endian fields of a request, from ``at`` on; a field past the end raises ``struct.error``."""

    def __init__(self, data: memoryview, at: int) -> None:
        self.data, self.at = data, at

    def unpack(self, layout: str) -> tuple:
        values = struct.unpack_from(layout, self.data, self.at)
        self.at += struct.calcsize(layout)
        return values

    def skip(self, size: int) -> None:
        self.at += size

    def take(self, size: int) -> memoryview:
        if self.at + size > len(self.data):
            raise FrameError(f"a field claims {size} bytes where {len(self.data) - self.at} are left")
        part = self.data[self.at : self.at + size]
        self.at += size
        return part

    def string(self) -> str | None:
        (size,) = self.unpack(">h")
        if size < 0:
            return None
        try:
            return bytes(self.take(size)).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FrameError("a string of the request is not UTF-8") from exc

    def count(self, what: str) -> int:
        (size,) = self.unpack(">i")
        if size < 0 or size > len(self.data):
            raise FrameError(f"the request claims {size} {what}")
        return size
