"""Kafka v2 record bodies and zigzag varints: golden bytes both ways, errors, round trips."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host_functions.kafka_wire import (
    HEADERS_TYPE,
    decode_record_bodies,
    decode_varints,
    encode_record_bodies,
    encode_varints,
)

#: value -> its zigzag varint (Kafka's ByteUtils.writeVarlong; protobuf's sint64).
VARINTS = [
    (0, "00"),
    (-1, "01"),
    (1, "02"),
    (-2, "03"),
    (63, "7e"),
    (-64, "7f"),
    (64, "8001"),
    (300, "d804"),
    (-8193, "818001"),
    (2**31 - 1, "feffffff0f"),
    (-(2**31), "ffffffff0f"),
    (2**63 - 1, "feffffffffffffffff01"),
    (-(2**63), "ffffffffffffffffff01"),
]

#: (key, value, headers) -> the record body.
BODIES = [
    ((b"k", b"hello", []), "026b0a68656c6c6f00"),
    ((None, b"v", []), "01027600"),
    ((b"", None, []), "000100"),
    ((None, None, [("a", b"1"), ("b", None)]), "01010402610231026201"),
    ((b"\xff" * 64, b"", [("", b"")]), "8001" + "ff" * 64 + "00020000"),
]

#: A malformed body -> the reason given for it.
MALFORMED = [
    ("", "the key length is not a complete varint"),
    ("80", "the key length is not a complete varint"),
    ("03", "the key length is negative"),
    ("046b", "the key runs past the end of the record"),
    ("026b", "the value length is not a complete varint"),
    ("026b02", "the value runs past the end of the record"),
    ("0101", "the header count is not a complete varint"),
    ("010101", "negative header count"),
    ("0101020261", "the header value length is not a complete varint"),
    ("01010202ff01", "a header name is not UTF-8"),
    ("01010000", "bytes left over after the headers"),
]


def _headers(rows: list[list[tuple[str, bytes | None]]]) -> pa.Array:
    return pa.array([[{"key": k, "value": v} for k, v in row] for row in rows], type=HEADERS_TYPE)


@pytest.mark.parametrize(("value", "encoded"), VARINTS)
def test_varint_golden(value, encoded):
    assert encode_varints(np.array([value])).to_pylist() == [bytes.fromhex(encoded)]
    data = np.frombuffer(bytes.fromhex(encoded), dtype=np.uint8)
    values, sizes = decode_varints(data, np.array([0]), np.array([len(data)]))
    assert (values[0], sizes[0]) == (value, len(data))


def test_varint_cut_short_has_size_zero():
    data = np.frombuffer(bytes.fromhex("d80480"), dtype=np.uint8)
    values, sizes = decode_varints(data, np.array([0, 2]), np.array([1, 3]))
    assert sizes.tolist() == [0, 0]


def test_record_bodies_golden_encode():
    keys = pa.array([fields[0] for fields, _ in BODIES], pa.binary())
    values = pa.array([fields[1] for fields, _ in BODIES], pa.binary())
    headers = _headers([fields[2] for fields, _ in BODIES])
    encoded = encode_record_bodies(keys, values, headers)
    assert [body.hex() for body in encoded.to_pylist()] == [expected for _, expected in BODIES]


def test_record_bodies_golden_decode():
    decoded = decode_record_bodies(pa.array([bytes.fromhex(body) for _, body in BODIES], pa.binary()))
    assert not decoded.bad.any() and decoded.reasons == {}
    assert decoded.keys.to_pylist() == [fields[0] for fields, _ in BODIES]
    assert decoded.values.to_pylist() == [fields[1] for fields, _ in BODIES]
    assert decoded.headers.to_pylist() == [[{"key": k, "value": v} for k, v in fields[2]] for fields, _ in BODIES]


def test_without_headers_column_every_record_has_none():
    encoded = encode_record_bodies(pa.array([b"k"]), pa.array(["text"], pa.string()))
    assert encoded.to_pylist() == [bytes.fromhex("026b08") + b"text" + b"\x00"]


def test_malformed_bodies_fail_alone_with_their_reason():
    good = bytes.fromhex(BODIES[0][1])
    bodies = [good] + [bytes.fromhex(body) for body, _ in MALFORMED] + [good]
    decoded = decode_record_bodies(pa.array(bodies, pa.binary()))
    assert decoded.reasons == {row + 1: reason for row, (_, reason) in enumerate(MALFORMED)}
    assert decoded.bad.tolist() == [False] + [True] * len(MALFORMED) + [False]
    assert decoded.values.to_pylist() == [b"hello"] + [None] * len(MALFORMED) + [b"hello"]
    assert decoded.headers.to_pylist() == [[]] * len(bodies)


def test_a_null_header_name_reads_as_empty():
    # Redpanda accepts -1 for a header name; the Rust SDK reads it as empty
    decoded = decode_record_bodies(pa.array([bytes.fromhex("0101020101")], pa.binary()))
    assert decoded.headers.to_pylist() == [[{"key": "", "value": None}]]


def test_sliced_and_chunked_inputs():
    keys = pa.chunked_array([pa.array([b"a", b"b"]), pa.array([None], pa.binary())])
    values = pa.array([b"x", b"y", b"z", b"w"])[1:]
    headers = _headers([[], [("h", b"1")], [], []])[1:]
    encoded = encode_record_bodies(keys, values, headers)
    decoded = decode_record_bodies(encoded.slice(1))
    assert decoded.keys.to_pylist() == [b"b", None]
    assert decoded.values.to_pylist() == [b"z", b"w"]
    assert decoded.headers.to_pylist() == [[], []]
    assert decode_record_bodies(encoded).headers.to_pylist() == [[{"key": "h", "value": b"1"}], [], []]


_bytes = st.one_of(st.none(), st.binary(max_size=300))
_header = st.tuples(st.text(max_size=20), _bytes)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_bytes, _bytes, st.lists(_header, max_size=4)), max_size=30))
def test_round_trip(records):
    keys = pa.array([r[0] for r in records], pa.binary())
    values = pa.array([r[1] for r in records], pa.binary())
    headers = _headers([r[2] for r in records])
    decoded = decode_record_bodies(encode_record_bodies(keys, values, headers))
    assert not decoded.bad.any()
    assert decoded.keys.to_pylist() == keys.to_pylist()
    assert decoded.values.to_pylist() == values.to_pylist()
    assert decoded.headers.to_pylist() == headers.to_pylist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1), max_size=50))
def test_varints_round_trip(values):
    encoded = encode_varints(np.array(values, dtype=np.int64))
    offsets = np.frombuffer(encoded.buffers()[1], dtype=np.int32).astype(np.int64)
    data_buffer = encoded.buffers()[2]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    decoded, sizes = decode_varints(data, offsets[:-1], offsets[1:])
    assert decoded.tolist() == values
    assert sizes.tolist() == np.diff(offsets).tolist()
