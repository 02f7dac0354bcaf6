"""Hostile Kafka Connect ABI guests through `smt run`: each fails only its record, and WASI gives nothing away.

(The Wasm limits of issue #11 — start functions, fan-out, module size — are
probed in ``test_wasm_limits.py``.)
"""

import pytest
import wasmtime

from tests.host_functions import wat_guests as g
from tests.reliability.conftest import assert_accounted, context_header

pytestmark = pytest.mark.spark

VALUES = ["one", "two", "bad", "four", "five"]  # each guest misbehaves on "bad"


@pytest.mark.parametrize(
    "guest, function, settings, reason",
    [
        (g.INFINITE_LOOP, "spin", "timeout.ms=300", "timed out after 300 ms (timeout.ms)"),
        (g.MEMORY_BOMB, "bomb", "memory.max.bytes=4194304", "out of memory"),
        (g.TRAP, "boom", "", "trap: unreachable instruction executed"),
        (g.OUT_OF_BOUNDS, "oob", "", "bad pointer"),
        (g.GARBAGE_RETURN, "garbage", "", "bad pointer"),
    ],
    ids=["loop", "memory-bomb", "trap", "out-of-bounds", "garbage-return"],
)
def test_a_hostile_guest_fails_only_its_record(probe, spark, guest, function, settings, reason):
    probe.input("values.txt", "".join(f"{v}\n" for v in VALUES))
    (probe.root / "guest.wasm").write_bytes(wasmtime.wat2wasm(guest))
    extra = f"transforms.g.{settings}\n" if settings else ""
    pipeline = probe.pipeline(
        "source.path=in\nsink.path=out\nsink.format=text\n"
        f"transforms=g\ntransforms.g.type=wasm\ntransforms.g.module.path=guest.wasm\ntransforms.g.function.name={function}\n"
        f"{extra}errors.tolerance=all\nerrors.deadletterqueue.path=dlq\n"
        "errors.deadletterqueue.context.headers.enable=true\n"
    )
    outcome = probe.run(pipeline)
    assert_accounted(outcome, written_lines=4, dead_letters=1)
    assert sorted(probe.lines("out")) == sorted(v.upper().encode() for v in VALUES if v != "bad")
    [dead] = probe.dead_letters()
    assert dead["value"] == "bad" and context_header(dead, "stage") == "TRANSFORMATION"
    assert reason in context_header(dead, "exception.message")
    probe.assert_input_unchanged()


#: A WASI guest trying its way out; the value it sets is four result bytes:
#: fd_prestat_get(3) errno, path_open(3, "/etc/passwd", fd_read) errno, the environment's
#: variable count, sock_accept(3) errno.
WASI_ESCAPE = g.guest(
    """(func (export "escape")
    (call $reset)
    (i32.store8 (i32.const 800) (call $fd_prestat_get (i32.const 3) (i32.const 960)))
    (i32.store8 (i32.const 801) (call $path_open (i32.const 3) (i32.const 0) (i32.const 900) (i32.const 11)
      (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 968)))
    (drop (call $environ_sizes_get (i32.const 976) (i32.const 980)))
    (i32.store8 (i32.const 802) (i32.load (i32.const 976)))
    (i32.store8 (i32.const 803) (call $sock_accept (i32.const 3) (i32.const 0) (i32.const 984)))
    (call $set_value (i32.const 800) (i32.const 4)))""",
    imports=("set_value",),
    extra="""(import "wasi_snapshot_preview1" "fd_prestat_get" (func $fd_prestat_get (param i32 i32) (result i32)))
    (import "wasi_snapshot_preview1" "path_open"
      (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
    (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
    (import "wasi_snapshot_preview1" "sock_accept" (func $sock_accept (param i32 i32 i32) (result i32)))
    (data (i32.const 900) "/etc/passwd")""",
)

_EBADF = 8  # WASI errno: bad file descriptor


def test_a_wasi_guest_sees_no_files_no_environment_and_no_sockets(probe, spark, monkeypatch):
    import base64
    import json

    monkeypatch.setenv("SMT_PROBE_SECRET", "must not leak")
    probe.input("values.txt", "x\n")
    (probe.root / "escape.wasm").write_bytes(wasmtime.wat2wasm(WASI_ESCAPE))
    pipeline = probe.pipeline(
        "source.path=in\nsink.path=out\nsink.format=jsonl\n"
        "transforms=e\ntransforms.e.type=wasm\ntransforms.e.module.path=escape.wasm\n"
        "transforms.e.function.name=escape\ntransforms.e.wasi=true\n"
    )
    outcome = probe.run(pipeline)
    assert_accounted(outcome, written_lines=1, dead_letters=0)
    [line] = probe.lines("out")
    record = json.loads(line)
    value = record["value"].encode() if "value" in record else base64.b64decode(record["value_base64"])
    prestat, opened, environment, accepted = value
    assert (prestat, opened, environment) == (_EBADF, _EBADF, 0)
    assert accepted != 0  # no socket was handed over
