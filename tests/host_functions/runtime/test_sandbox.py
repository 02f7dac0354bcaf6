"""Hostile guests fail only their own record, with a clear message, and the batch goes on."""

from __future__ import annotations

import logging
import re

import pytest

from host_functions import WasmGuestError
from smt.errors import ConfigError, DataError
from tests.host_functions import wat_guests as g
from tests.host_functions.conftest import PATHS, make_record, run

# record 2 ("bad", read at partition 3, offset 42) triggers the misbehaviour; the others are upper-cased
VALUES = [b"one", b"two", b"bad", b"four", b"five"]


def _run_hostile(transform):
    out, origins, errors = run(transform, [make_record(v, partition=3, offset=40 + i) for i, v in enumerate(VALUES)])
    assert [r.value for r in out] == [b"ONE", b"TWO", b"FOUR", b"FIVE"]
    assert origins == [0, 1, 3, 4]
    assert errors.rows == [2]
    error = errors.failures[0][1]
    assert isinstance(error, WasmGuestError) and isinstance(error, DataError)
    return str(error)


@pytest.mark.parametrize("path", PATHS)
class TestHostileGuests:
    def test_infinite_loop_times_out(self, make_transform, path):
        transform = make_transform(g.INFINITE_LOOP, "spin", path, timeout_ms=200)
        message = _run_hostile(transform)
        assert message == (
            f"wasm transform 'mask' (spin in {transform.guest.label}): timed out after 200 ms (timeout.ms) "
            "on the record at partition=3 offset=42 (row 2 of the batch)"
        )

    def test_memory_bomb(self, make_transform, path):
        transform = make_transform(g.MEMORY_BOMB, "bomb", path, memory_max_bytes=4 * 1024 * 1024)
        message = _run_hostile(transform)
        assert "bomb in" in message
        assert "out of memory: guest memory at 3211264 bytes of memory.max.bytes=4194304" in message
        assert message.endswith("on the record at partition=3 offset=42 (row 2 of the batch)")

    def test_trap(self, make_transform, path):
        message = _run_hostile(make_transform(g.TRAP, "boom", path))
        # the WAT guest's functions have no names: the backtrace gives their index
        assert re.search(
            r"trap: unreachable instruction executed \(the guest aborted\); guest backtrace: "
            r"function\[\d+\] on the record at partition=3 offset=42 \(row 2 of the batch\)$",
            message,
        )

    def test_out_of_bounds_pointer(self, make_transform, path):
        message = _run_hostile(make_transform(g.OUT_OF_BOUNDS, "oob", path))
        assert "bad pointer: (2147418112, 100) is outside guest memory of 65536 bytes on the record at" in message

    def test_garbage_return(self, make_transform, path):
        message = _run_hostile(make_transform(g.GARBAGE_RETURN, "garbage", path))
        assert "bad pointer: (3735928559, 1588444911) is outside guest memory" in message

    def test_instance_is_replaced_and_later_batches_run(self, make_transform, path):
        transform = make_transform(g.TRAP, "boom", path)
        _run_hostile(transform)
        out, _, errors = run(transform, [make_record(b"again")])
        assert [r.value for r in out] == [b"AGAIN"] and errors.failures == []

    def test_apply_raises_for_a_failed_record(self, make_transform, path):
        transform = make_transform(g.TRAP, "boom", path)
        with pytest.raises(WasmGuestError, match=r"wasm transform 'mask' \(boom in .*\): trap: unreachable"):
            transform.apply(make_record(b"bad"))
        assert transform.apply(make_record(b"good")).value == b"GOOD"


@pytest.mark.parametrize("path", PATHS)
def test_several_failures_in_one_batch(make_transform, path):
    transform = make_transform(g.TRAP, "boom", path)
    values = [b"bad", b"ok", b"bad", b"bad", b"fine", b"bad"]
    out, origins, errors = run(transform, [make_record(v) for v in values])
    assert [r.value for r in out] == [b"OK", b"FINE"] and origins == [1, 4]
    assert errors.rows == [0, 2, 3, 5]


def test_wasi_is_off_unless_enabled_and_stdout_goes_to_the_log(make_transform, caplog):
    # fd_write(stdout, iovec at 200 -> (16, 5) = "hello", 1 iovec, written count at 240)
    wasi_guest = g.guest(
        """(func (export "f") (call $reset)
            (i32.store (i32.const 200) (i32.const 16)) (i32.store (i32.const 204) (i32.const 5))
            (drop (call $fd_write (i32.const 1) (i32.const 200) (i32.const 1) (i32.const 240))))""",
        extra="""(import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
                 (data (i32.const 16) "hello\\n")""",
    )
    with pytest.raises(ConfigError, match=r"imports WASI function 'wasi_snapshot_preview1.fd_write' but WASI is off"):
        make_transform(wasi_guest, "f")
    transform = make_transform(wasi_guest, "f", alias="chatty", wasi="true")
    with caplog.at_level(logging.INFO, logger="smt.transform.chatty"):
        out, _, errors = run(transform, [make_record(b"x")])
    assert [r.value for r in out] == [b"x"] and errors.failures == []
    assert [r.getMessage() for r in caplog.records if r.name == "smt.transform.chatty"] == ["[stdout] hello"]


def test_outputs_larger_than_the_memory_limit_are_split_across_instances(make_transform):
    # each record outputs ~62 KB of values; output memories may hold 256 KB,
    # so the fast path restarts on a fresh instance every few records
    suffix = "s" * 30_000
    records = [make_record(b"a" + bytes([48 + i]) * 2000) for i in range(10)]
    results = []
    for path in ("fast", "reference"):
        transform = make_transform(
            g.FILTER_FAN_OUT, "filter_fan_out", path, memory_max_bytes=256 * 1024, config_suffix=suffix
        )
        out, origins, errors = run(transform, records)
        assert errors.failures == []
        results.append((out, origins))
    assert results[0] == results[1]
    out, origins = results[0]
    assert origins == [i for i in range(10) for _ in range(3)]
    assert [len(r.value) for r in out[:3]] == [2001, 30_000, 30_000]


BUSY = g.guest(
    """(func (export "busy") (local $i i32) (local $v i64)
        (call $reset)
        (block $done (loop $spin
          (br_if $done (i32.ge_u (local.get $i) (i32.const 30000000)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $spin)))
        (local.set $v (call $get_value))
        (call $set_value (call $ptr (local.get $v)) (call $len (local.get $v))))""",
    imports=("get_value", "set_value"),
)


@pytest.mark.parametrize("path", PATHS)
def test_timeouts_elsewhere_do_not_reach_a_busy_record(make_transform, path):
    """The watchdog bumps the engine epoch every store shares; only the call that timed out stops.
    A busy record runs through many other transforms' timeouts, once, and does not fail."""
    import threading

    looping = make_transform(g.INFINITE_LOOP, "spin", path, timeout_ms=20)
    busy = make_transform(BUSY, "busy", path, alias="busy", timeout_ms=10_000)
    results, spins = {}, []

    def run_busy():
        results["busy"] = run(busy, [make_record(b"v%d" % i) for i in range(12)])

    worker = threading.Thread(target=run_busy)
    worker.start()
    while worker.is_alive() or not spins:
        spins.append(run(looping, [make_record(b"bad"), make_record(b"ok")]))
    worker.join()
    busy_out, _, busy_errors = results["busy"]
    assert [busy_errors.message(row) for row in busy_errors.rows] == []
    assert [r.value for r in busy_out] == [b"v%d" % i for i in range(12)]
    for loop_out, _, loop_errors in spins:
        assert loop_errors.rows == [0] and "timed out after 20 ms" in loop_errors.message(0)
        assert [r.value for r in loop_out] == [b"OK"]
    assert len(spins) > 3  # more timeouts than the three retries in a row the old rule allowed


@pytest.mark.parametrize("path", PATHS)
def test_a_record_too_big_for_the_memory_limit_fails_alone(make_transform, path):
    transform = make_transform(g.TO_UPPER, "to_upper", path, memory_max_bytes=256 * 1024)
    records = [make_record(b"small %d" % i) for i in range(6)]
    records[3] = make_record(b"x" * 300_000)
    out, origins, errors = run(transform, records)
    assert origins == [0, 1, 2, 4, 5] and out[0].value == b"SMALL 0"
    assert errors.rows == [3]
    assert "memory.max.bytes=262144" in errors.message(3)


#: drops the record, then logs: nothing runs between the log line and the row's commit.
DROP_THEN_LOG = g.guest(
    """(func (export "drop_log") (local $v i64)
        (call $reset)
        (call $drop_record)
        (local.set $v (call $get_value))
        (call $log (i32.const 1) (call $ptr (local.get $v)) (call $len (local.get $v))))""",
    imports=("get_value", "drop_record", "log"),
)


class _InterruptEveryStore(logging.Handler):
    """Bumps the engine epoch on each guest log line, as the watchdog does for another transform's timeout."""

    interrupts = 0

    def emit(self, record):
        from host_functions.runtime.engine import runtime

        self.interrupts += 1
        runtime().engine.increment_epoch()


@pytest.mark.parametrize("path", PATHS)
def test_epoch_ticks_just_after_a_row_run_each_row_once(make_transform, path):
    # The epoch tick lands as the guest returns; the first place wasmtime
    # checks it is past the row's commit.  Another transform's timeout must
    # neither stop this call nor run the row again (it would output twice).
    transform = make_transform(DROP_THEN_LOG, "drop_log", path, alias="dropper")
    logger = logging.getLogger("smt.transform.dropper")
    handler = _InterruptEveryStore()
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        out, _, errors = run(transform, [make_record(b"v%d" % i) for i in range(6)])
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert out == [] and errors.failures == []
    assert handler.interrupts == 6  # each row ran once
