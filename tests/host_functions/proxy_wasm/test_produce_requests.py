"""Produce requests as the host writes and reads them, against Kafka's own classes, and what is refused."""

from __future__ import annotations

import random
import re
import struct
import subprocess
from pathlib import Path

import crc32c
import numpy as np
import pyarrow as pa
import pytest

from host_functions.kafka_wire import HEADERS_TYPE, encode_record_bodies
from host_functions.proxy_wasm._produce import decode_forwarded, encode_produce_request
from host_functions.proxy_wasm._record_codec import RecordCodec
from host_functions.runtime.engine import runtime
from smt.local.kafka import BROKER_BUNDLE

ORACLE = Path(__file__).resolve().parent / "ProduceRequestOracle.java"


@pytest.fixture(scope="module")
def codec() -> RecordCodec:
    return RecordCodec(runtime())


def _random_records(rng: random.Random, count: int):
    def blob():
        return None if rng.random() < 0.15 else bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 5, 70, 300])))

    keys = [blob() for _ in range(count)]
    values = [blob() for _ in range(count)]
    with_headers = rng.random() < 0.5  # half the requests have none: the host writes those without bodies
    headers = [
        [
            {"key": rng.choice(["a", "trace-id", "ü", ""]), "value": blob()}
            for _ in range(rng.choice([0, 0, 1, 3]) if with_headers else 0)
        ]
        for _ in range(count)
    ]
    millis = [rng.choice([-1, 0, 1_700_000_000_000 + rng.randrange(-(10**6), 10**6)]) for _ in range(count)]
    return keys, values, headers, np.array(millis, dtype=np.int64)


def _request(codec, correlation_id, topic, partition, keys, values, headers, millis) -> bytes:
    """A request as the host writes it: from the bodies when a record has headers, else from keys and values."""
    keys, values = pa.array(keys, pa.binary()), pa.array(values, pa.binary())
    bodies = encode_record_bodies(keys, values, pa.array(headers, HEADERS_TYPE)) if any(headers) else None
    return encode_produce_request(codec, correlation_id, topic, partition, keys, values, bodies, millis, 30_000)


def _lines(correlation_id, topic, partition, keys, values, headers, millis) -> list[str]:
    def hex_or_dash(value):
        return "-" if value is None else value.hex()

    lines = []
    for i, (key, value, record_headers, ts) in enumerate(zip(keys, values, headers, millis.tolist())):
        fields = [str(correlation_id), topic, str(partition), str(i), str(ts), hex_or_dash(key), hex_or_dash(value)]
        for header in record_headers:
            fields += [header["key"].encode().hex(), hex_or_dash(header["value"])]
        lines.append(" ".join(fields))
    return lines


def test_kafka_reads_the_requests_the_host_writes(codec, tmp_path, java, maven_resolve):
    classpath = [str(jar) for jar in maven_resolve(BROKER_BUNDLE)]  # the broker's: kafka-clients and its logging
    rng = random.Random(20261126)
    files, expected = [], []
    for n in range(25):
        count = rng.choice([1, 2, 17, 200])
        records = _random_records(rng, count)
        topic, partition = rng.choice(["in", "orders.v1", "t"]), rng.choice([-1, 0, 7])
        path = tmp_path / f"request-{n}.bin"
        path.write_bytes(_request(codec, n, topic, partition, *records))
        files.append(str(path))
        expected += _lines(n, topic, partition, *records)
    result = subprocess.run(
        [java, "-cp", ":".join(classpath), str(ORACLE), *files],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == expected


def test_the_host_reads_back_what_it_writes(codec):
    rng = random.Random(7)
    keys, values, headers, millis = _random_records(rng, 500)
    frames, broken = decode_forwarded(_request(codec, 3, "in", 2, keys, values, headers, millis), codec)
    assert broken is None and [f.correlation_id for f in frames] == [3] and frames[0].error is None
    (part,) = frames[0].partitions
    assert (part.topic, part.partition) == ("in", 2)
    assert part.offset_deltas.tolist() == list(range(500)) and part.timestamps.tolist() == millis.tolist()
    assert part.records.keys.to_pylist() == keys and part.records.values.to_pylist() == values
    assert part.records.headers.cast(HEADERS_TYPE).to_pylist() == headers


def _single_request(codec) -> bytes:
    return _request(codec, 1, "in", 0, [b"k"], [b"value"], [[]], np.array([5], dtype=np.int64))


#: Where the record batch of :func:`_single_request` starts: size, header (api key, version, correlation id,
#: client id), transactional id, acks, timeout, topic count, topic "in", partition count, index, records size.
BATCH_AT = 4 + 2 + 2 + 4 + 2 + len(b"spark-smt") + 2 + 2 + 4 + 4 + 2 + 2 + 4 + 4 + 4


def _with(data: bytes, at: int, replacement: bytes, fix_crc: bool = True) -> bytes:
    """``data`` with bytes replaced at ``at``, and (unless ``fix_crc`` is false) a CRC-32C that fits again."""
    changed = bytearray(data)
    changed[at : at + len(replacement)] = replacement
    if fix_crc:
        changed[BATCH_AT + 17 : BATCH_AT + 21] = struct.pack(">I", crc32c.crc32c(bytes(changed[BATCH_AT + 21 :])))
    return bytes(changed)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (
            lambda d: _with(d, 4, struct.pack(">h", 1)),
            "the filter forwarded a request with API key 1, not a Produce request",
        ),
        (
            lambda d: _with(d, 6, struct.pack(">h", 9)),
            r"the filter forwarded a Produce request v9 \(only v3 to v8 are read\)",
        ),
        (lambda d: _with(d, len(d) - 1, b"\x01", fix_crc=False), "a record batch of in-0 fails its CRC-32C check"),
        (lambda d: _with(d, BATCH_AT + 16, b"\x01"), "a record batch of in-0 has magic 1, not 2"),
        (
            lambda d: _with(d, BATCH_AT + 22, b"\x01"),
            "a record batch of in-0 is compressed, which the host does not read",
        ),
        (lambda d: _with(d, BATCH_AT + 57, struct.pack(">i", 2)), "record 1 of a record batch of in-0 is malformed"),
        (lambda d: _with(d, len(d) - 1, b"\x07"), "record 0 of a record batch of in-0 is malformed"),
    ],
)
def test_a_request_the_host_cannot_read_says_why(codec, change, error):
    frames, broken = decode_forwarded(change(_single_request(codec)), codec)
    assert broken is None and len(frames) == 1
    assert frames[0].error is not None and re.match(error, frames[0].error), frames[0].error


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"\x00\x00", "2 bytes after the last request are not a request"),
        (struct.pack(">i", 100) + b"\x00" * 10, "a request claims 100 bytes where 10 are left"),
    ],
)
def test_a_stream_that_is_not_requests_says_why(codec, data, error):
    frames, broken = decode_forwarded(data, codec)
    assert frames == [] and broken == error
