"""The adapter's parser of written records agrees with host_functions.kafka_wire, on generated bodies.

A WAT guest writes each input value back as the *body* of an output record
(``write_record``), so whatever bytes a test gives become a body for the
adapter to parse: a valid one must come out as kafka_wire decodes it, a
malformed one is refused (-2, nothing written), as Redpanda refuses it.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
import wasmtime
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host_functions import WasmTransform
from host_functions.kafka_wire import HEADERS_TYPE, decode_record_bodies, encode_record_bodies
from smt.plugin import PluginContext
from tests.host_functions._guest_helpers import run
from tests.host_functions.redpanda.conftest import record

#: Writes each record's value (at most 63 bytes, after a null key) back as an output body.
ECHO_BODY = """(module
  (import "redpanda_transform" "check_abi_version_2" (func $check))
  (import "redpanda_transform" "read_batch_header"
    (func $header (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (import "redpanda_transform" "read_next_record" (func $next (param i32 i32 i32 i32 i32) (result i32)))
  (import "redpanda_transform" "write_record" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 2)
  (func (export "_start") (local $count i32)
    (call $check)
    (loop $batches
      (drop (call $header (i32.const 0) (i32.const 8) (i32.const 12) (i32.const 16) (i32.const 20)
                          (i32.const 24) (i32.const 32) (i32.const 40) (i32.const 48) (i32.const 52)))
      (local.set $count (i32.load (i32.const 8)))
      (block $done (loop $records
        (br_if $done (i32.eqz (local.get $count)))
        (drop (call $next (i32.const 64) (i32.const 72) (i32.const 80) (i32.const 1024) (i32.const 65536)))
        ;; the body read is 0x01 (null key), the value's length (one byte: 2 * len), the value
        (drop (call $write (i32.const 1026) (i32.shr_u (i32.load8_u (i32.const 1025)) (i32.const 1))))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
        (br $records)))
      (br $batches))))"""


@pytest.fixture(scope="module")
def echo_body(tmp_path_factory):
    path = tmp_path_factory.mktemp("echo") / "echo_body.wasm"
    path.write_bytes(wasmtime.wat2wasm(ECHO_BODY))
    transform = WasmTransform()
    transform.configure({"module.path": str(path)}, PluginContext("echo", "transforms.echo."))
    yield transform
    transform.close()


_small = st.one_of(st.none(), st.binary(max_size=8))
_record = st.tuples(_small, _small, st.lists(st.tuples(st.text(max_size=4), _small), max_size=2))


def _encoded(fields) -> bytes:
    key, value, headers = fields
    headers_array = pa.array([[{"key": k, "value": v} for k, v in headers]], HEADERS_TYPE)
    return encode_record_bodies(pa.array([key], pa.binary()), pa.array([value], pa.binary()), headers_array)[0].as_py()


_body = st.one_of(
    _record.map(_encoded),
    _record.map(_encoded).flatmap(lambda body: st.integers(0, len(body)).map(lambda cut: body[:cut])),
    _record.map(_encoded).map(lambda body: body + b"\x00"),
    st.binary(max_size=12),
).filter(lambda body: len(body) < 64)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_body, min_size=1, max_size=20))
def test_written_bodies_decode_as_kafka_wire_decodes_them(echo_body, bodies):
    out, errors = run(echo_body, [record(body, key=None, offset=i) for i, body in enumerate(bodies)])
    expected = decode_record_bodies(pa.array(bodies, pa.binary()))
    utf8 = [row for row, reason in expected.reasons.items() if reason == "a header name is not UTF-8"]
    written = np.flatnonzero(~expected.bad).tolist()
    assert list(out.origin) == written
    assert errors.rows == utf8  # malformed bodies are refused (nothing written); a bad name fails the record
    assert list(out.key) == [expected.keys[i].as_py() for i in written]
    assert list(out.value) == [expected.values[i].as_py() for i in written]
    assert [list(h) for h in out.headers] == [
        [(h["key"], h["value"]) for h in expected.headers[i].as_py()] for i in written
    ]
