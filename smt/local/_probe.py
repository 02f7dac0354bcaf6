"""A Kafka Metadata request over a plain socket: is the local broker serving?

Readiness of the local broker needs no client library: one Metadata request
(version 4, the oldest Kafka 4 still serves) answered with at least one live
broker means producers and consumers can connect.  For a secured listener the
socket is wrapped in TLS (``ssl_context``) and/or authenticated with SASL/PLAIN
first (``sasl_plain``: SaslHandshake v1, then SaslAuthenticate v0).  Only the
fields the callers use are kept.
"""

from __future__ import annotations

import dataclasses
import socket
import ssl
import struct

__all__ = ["ClusterMetadata", "ProbeError", "SaslAuthenticationFailed", "fetch_metadata"]

_METADATA_API_KEY = 3
_METADATA_VERSION = 4
_SASL_HANDSHAKE_API_KEY = 17
_SASL_HANDSHAKE_VERSION = 1
_SASL_AUTHENTICATE_API_KEY = 36
_SASL_AUTHENTICATE_VERSION = 0
_CLIENT_ID = b"spark-smt-probe"


class ProbeError(Exception):
    """The broker answered with something this probe cannot read."""


class SaslAuthenticationFailed(ProbeError):
    """The broker refused the SASL/PLAIN user name and password."""


@dataclasses.dataclass(frozen=True)
class ClusterMetadata:
    cluster_id: str | None
    brokers: tuple[tuple[int, str, int], ...]
    #: Topic name -> number of partitions, internal topics included.
    topics: dict[str, int]


def fetch_metadata(
    host: str, port: int, timeout: float = 2.0, *,
    ssl_context: ssl.SSLContext | None = None, sasl_plain: tuple[str, str] | None = None,
) -> ClusterMetadata:  # fmt: skip
    """Metadata for all topics from the broker at ``host:port``.

    ``ssl_context`` wraps the connection in TLS (server name ``host``);
    ``sasl_plain`` (user name, password) authenticates with SASL/PLAIN first.
    Raises ``OSError`` when the broker cannot be reached or closes the
    connection (``ssl.SSLError`` when TLS fails), :class:`SaslAuthenticationFailed`
    when it refuses the user, :class:`ProbeError` when an answer is malformed.
    """
    with socket.create_connection((host, port), timeout=timeout) as raw:
        raw.settimeout(timeout)
        sock = ssl_context.wrap_socket(raw, server_hostname=host) if ssl_context else raw
        try:
            if sasl_plain is not None:
                _authenticate_plain(sock, *sasl_plain)
            # topics = null (all topics), allow_auto_topic_creation = false
            response = _exchange(sock, _METADATA_API_KEY, _METADATA_VERSION, 3, struct.pack(">ib", -1, 0))
        finally:
            if sock is not raw:
                sock.close()
    return _parse_metadata(response)


def _authenticate_plain(sock: socket.socket, username: str, password: str) -> None:
    mechanism = b"PLAIN"
    handshake = _exchange(sock, _SASL_HANDSHAKE_API_KEY, _SASL_HANDSHAKE_VERSION, 1,
                          struct.pack(">h", len(mechanism)) + mechanism)  # fmt: skip
    error_code = handshake.int16()
    if error_code != 0:
        raise ProbeError(f"the broker does not accept SASL/PLAIN (SaslHandshake error {error_code})")
    token = b"\0" + username.encode() + b"\0" + password.encode()
    answer = _exchange(sock, _SASL_AUTHENTICATE_API_KEY, _SASL_AUTHENTICATE_VERSION, 2,
                       struct.pack(">i", len(token)) + token)  # fmt: skip
    error_code = answer.int16()
    if error_code != 0:
        raise SaslAuthenticationFailed(f"SASL/PLAIN authentication as '{username}' failed: {answer.string()}")


def _exchange(sock: socket.socket, api_key: int, version: int, correlation_id: int, body: bytes) -> "_Reader":
    """Send one request (header v1) and return a reader placed after the response header."""
    header = struct.pack(">hhih", api_key, version, correlation_id, len(_CLIENT_ID)) + _CLIENT_ID
    request = header + body
    sock.sendall(struct.pack(">i", len(request)) + request)
    size = struct.unpack(">i", _receive(sock, 4))[0]
    response = _Reader(_receive(sock, size))
    if response.int32() != correlation_id:
        raise ProbeError(f"response to API {api_key} has the wrong correlation id")
    return response


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
            raise ProbeError("response is truncated")
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
            raise ProbeError("response is truncated")
        text = self._data[self._pos : self._pos + length].decode("utf-8")
        self._pos += length
        return text
