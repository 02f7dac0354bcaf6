"""A Kafka Metadata request over a plain socket: is the local broker serving?

The local broker listens on PLAINTEXT loopback, so readiness needs no client
library: one Metadata request (version 4, the oldest Kafka 4 still serves)
answered with at least one live broker means producers and consumers can
connect.  Only the fields the callers use are kept.
"""

from __future__ import annotations

import dataclasses
import socket
import struct

__all__ = ["ClusterMetadata", "ProbeError", "fetch_metadata"]

_METADATA_API_KEY = 3
_METADATA_VERSION = 4
_CLIENT_ID = b"spark-smt-probe"


class ProbeError(Exception):
    """The broker answered with something this probe cannot read."""


@dataclasses.dataclass(frozen=True)
class ClusterMetadata:
    cluster_id: str | None
    brokers: tuple[tuple[int, str, int], ...]
    #: Topic name -> number of partitions, internal topics included.
    topics: dict[str, int]


def fetch_metadata(host: str, port: int, timeout: float = 2.0) -> ClusterMetadata:
    """Metadata for all topics from the broker at ``host:port``.

    Raises ``OSError`` when the broker cannot be reached or closes the
    connection, :class:`ProbeError` when the answer is malformed.
    """
    correlation_id = 1
    header = struct.pack(">hhih", _METADATA_API_KEY, _METADATA_VERSION, correlation_id, len(_CLIENT_ID))
    # topics = null (all topics), allow_auto_topic_creation = false
    body = struct.pack(">ib", -1, 0)
    request = header + _CLIENT_ID + body
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(struct.pack(">i", len(request)) + request)
        size = struct.unpack(">i", _receive(sock, 4))[0]
        response = _Reader(_receive(sock, size))
    if response.int32() != correlation_id:
        raise ProbeError("metadata response has the wrong correlation id")
    return _parse_metadata(response)


def _receive(sock: socket.socket, size: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            raise ConnectionError("broker closed the connection mid-response")
        chunks.extend(chunk)
    return bytes(chunks)


def _parse_metadata(reader: "_Reader") -> ClusterMetadata:
    reader.int32()  # throttle_time_ms
    brokers = []
    for _ in range(reader.int32()):
        node_id, host, port = reader.int32(), reader.string(), reader.int32()
        reader.string()  # rack
        brokers.append((node_id, host or "", port))
    cluster_id = reader.string()
    reader.int32()  # controller_id
    topics = {}
    for _ in range(reader.int32()):
        error_code, name = reader.int16(), reader.string()
        reader.int8()  # is_internal
        partitions = reader.int32()
        for _ in range(partitions):
            reader.int16(), reader.int32(), reader.int32()  # error, index, leader
            reader.int32_array()  # replicas
            reader.int32_array()  # in-sync replicas
        if error_code == 0 and name is not None:
            topics[name] = partitions
    return ClusterMetadata(cluster_id, tuple(brokers), topics)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def _take(self, fmt: str) -> int:
        size = struct.calcsize(fmt)
        if self._pos + size > len(self._data):
            raise ProbeError("metadata response is truncated")
        (value,) = struct.unpack_from(fmt, self._data, self._pos)
        self._pos += size
        return value

    def int8(self) -> int:
        return self._take(">b")

    def int16(self) -> int:
        return self._take(">h")

    def int32(self) -> int:
        return self._take(">i")

    def int32_array(self) -> list[int]:
        return [self.int32() for _ in range(max(self.int32(), 0))]

    def string(self) -> str | None:
        length = self.int16()
        if length < 0:
            return None
        if self._pos + length > len(self._data):
            raise ProbeError("metadata response is truncated")
        text = self._data[self._pos : self._pos + length].decode("utf-8")
        self._pos += length
        return text
