"""The watchdog stops the one call that timed out; epoch ticks meant for others leave a call running."""

from __future__ import annotations

import threading
import time

import pytest
import wasmtime

from host_functions.runtime.engine import WasmRuntime
from host_functions.runtime.wasmtime_internals import on_epoch_deadline
from host_functions.runtime.watchdog import ON_EPOCH_DEADLINE, interrupted

GUEST = """(module
  (func (export "spin") (loop $l (br $l)))
  (func (export "count") (param $n i32) (result i32) (local $i i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $i)))"""


@pytest.fixture(scope="module")
def rt() -> WasmRuntime:
    return WasmRuntime()


def _exports(rt: WasmRuntime) -> tuple[wasmtime.Store, dict]:
    store = wasmtime.Store(rt.engine)
    store.set_epoch_deadline(1)
    on_epoch_deadline(store, ON_EPOCH_DEADLINE)
    instance = wasmtime.Instance(store, rt.compile(GUEST.encode()), [])
    return store, {name: instance.exports(store)[name] for name in ("spin", "count")}


def _spin_until_stopped(rt: WasmRuntime, timeout: float = 0.05) -> BaseException:
    store, guest = _exports(rt)
    with rt.watchdog.watch(lambda: 0, timeout) as watch:
        with pytest.raises(wasmtime.WasmtimeError) as stopped:
            guest["spin"](store)
    assert watch.fired_at == 0
    return stopped.value


def test_a_call_past_its_timeout_stops_as_interrupted_and_the_thread_runs_on(rt):
    stopped = _spin_until_stopped(rt)

    assert interrupted(stopped)
    store, guest = _exports(rt)
    with rt.watchdog.watch(lambda: 0, 5.0):
        assert guest["count"](store, 1000) == 1000  # the thread's next call is not stopped


def test_a_call_started_after_its_threads_call_timed_out_runs_on(rt):
    """A runner starts a fresh instance while the watch of the call that timed out has not ended yet:
    the epoch moved past the new store's deadline, and the new call, watched innermost, is not stopped."""
    store, guest = _exports(rt)
    with rt.watchdog.watch(lambda: 0, 0.01) as timed_out:
        waited_until = time.monotonic() + 30
        while timed_out.fired_at is None and time.monotonic() < waited_until:
            time.sleep(0.005)
        assert timed_out.fired_at is not None
        with rt.watchdog.watch(lambda: 0, 60.0) as fresh:
            assert guest["count"](store, 1_000_000) == 1_000_000
    assert fresh.fired_at is None


def test_other_errors_are_not_interrupts():
    assert not interrupted(RuntimeError("the guest exited"))
    assert not interrupted(wasmtime.WasmtimeError("a host function failed"))
    assert not interrupted(None)


def test_timeouts_on_other_threads_do_not_stop_a_running_call(rt):
    store, guest = _exports(rt)
    timeouts: list[BaseException] = []
    counting = threading.Event()

    def time_out_repeatedly():
        counting.wait()
        while counting.is_set():
            timeouts.append(_spin_until_stopped(rt, timeout=0.01))

    other = threading.Thread(target=time_out_repeatedly)
    other.start()
    with rt.watchdog.watch(lambda: 0, 60.0) as watch:
        counting.set()
        counted = guest["count"](store, 400_000_000)
        counting.clear()
    other.join()
    assert counted == 400_000_000 and watch.fired_at is None
    assert len(timeouts) >= 2 and all(interrupted(exc) for exc in timeouts)


def test_a_guest_on_a_thread_of_its_own_stops_when_its_watch_names_that_thread(rt):
    outcome: list[BaseException] = []
    started = threading.Event()

    def guest_thread():
        store, guest = _exports(rt)
        started.set()
        try:
            guest["spin"](store)
        except wasmtime.WasmtimeError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=guest_thread, daemon=True)
    worker.start()
    started.wait()
    with rt.watchdog.watch(lambda: 0, 0.05, thread=worker.ident) as watch:
        worker.join(timeout=30)
    assert watch.fired_at == 0 and not worker.is_alive()
    assert len(outcome) == 1 and interrupted(outcome[0])
