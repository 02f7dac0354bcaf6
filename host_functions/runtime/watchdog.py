"""The watchdog: a thread that interrupts a guest call whose progress stalls past its timeout.

Every store shares the engine's epoch and has a deadline one tick ahead
(:func:`host_functions.runtime.sandbox.new_store`), so bumping the epoch
reaches whatever guest runs.  Each store then asks :data:`ON_EPOCH_DEADLINE`
whether *its* call timed out: only that call stops, with :data:`TIMED_OUT`;
every other guest moves its deadline one tick on and runs on, unaware.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Callable, Iterator

import wasmtime

from host_functions.runtime.wasmtime_internals import epoch_deadline_callback

__all__ = ["Watch", "Watchdog", "TIMED_OUT", "ON_EPOCH_DEADLINE", "interrupted"]

#: The message of the ``WasmtimeError`` a call stops with when its own watch fired.
TIMED_OUT = "smt-watchdog: the call ran past its timeout.ms"


def interrupted(exc: BaseException | None) -> bool:
    """Whether the watchdog stopped the call that raised ``exc``: the call's own ``timeout.ms`` passed."""
    return isinstance(exc, (wasmtime.WasmtimeError, wasmtime.Trap)) and TIMED_OUT in str(exc)


#: The watches of the calls running on each thread (by ident), innermost last: a call may start another
#: (a fresh instance's start function, after a record timed out) before its own watch ends.
_watches_by_thread: dict[int, list["Watch"]] = {}
_watches_lock = threading.Lock()


def _stop_if_timed_out() -> str | None:
    """Runs on the thread that runs the guest: whether the innermost watched call there timed out."""
    watches = _watches_by_thread.get(threading.get_ident())
    try:
        innermost = watches[-1] if watches else None
    except IndexError:  # it ended meanwhile
        return None
    return TIMED_OUT if innermost is not None and innermost.fired_at is not None else None


#: Every store's epoch-deadline callback (:func:`host_functions.runtime.sandbox.new_store` sets it).
ON_EPOCH_DEADLINE = epoch_deadline_callback(_stop_if_timed_out)


class Watch:
    """One watched call: the watchdog interrupts it when progress stalls.

    ``thread`` is the ident of the thread that runs the guest (the caller's, unless the guest runs on
    a thread of its own).
    """

    __slots__ = ("read_progress", "timeout", "thread", "last", "since", "fired_at")

    def __init__(self, read_progress: Callable[[], int], timeout: float, thread: int) -> None:
        self.read_progress = read_progress
        self.timeout = timeout
        self.thread = thread
        self.last = read_progress()
        self.since = time.monotonic()
        #: progress value when the watchdog fired, or None
        self.fired_at: int | None = None


class Watchdog:
    """Interrupts a call whose progress counter has not moved for its timeout.

    The per-record limit inside one batch call cannot be a store deadline
    (the deadline is set from the host, between calls), so each call exposes
    a counter that moves on every record; when it stalls past the timeout the
    watchdog marks the call's watch as fired and bumps the engine epoch.
    Every store's deadline is one tick ahead, so every running guest reaches
    its deadline callback; the one whose thread's innermost watch fired stops
    with :data:`TIMED_OUT`, the others run on.
    """

    def __init__(self, engine: wasmtime.Engine) -> None:
        self._engine = engine
        self._watches: set[Watch] = set()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def watch(self, read_progress: Callable[[], int], timeout: float, thread: int | None = None) -> Iterator[Watch]:
        """Watch the call run inside the block; ``thread``: the ident of the thread running the guest
        when it is not the caller's."""
        watch = Watch(read_progress, timeout, threading.get_ident() if thread is None else thread)
        with _watches_lock:
            _watches_by_thread.setdefault(watch.thread, []).append(watch)
        with self._cond:
            self._watches.add(watch)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="smt-wasm-watchdog", daemon=True)
                self._thread.start()
            self._cond.notify()
        try:
            yield watch
        finally:
            with self._cond:
                self._watches.discard(watch)
            with _watches_lock:
                running = _watches_by_thread[watch.thread]
                running.remove(watch)
                if not running:
                    del _watches_by_thread[watch.thread]

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._watches:
                    self._cond.wait()
                watches = list(self._watches)
            tick = min(w.timeout for w in watches) / 8
            time.sleep(min(max(tick, 0.001), 0.05))
            now = time.monotonic()
            for watch in watches:
                if self._watching(watch):  # else it ended while this thread slept: its progress means nothing
                    self._check(watch, watch.read_progress(), now)

    def _watching(self, watch: Watch) -> bool:
        with self._cond:
            return watch in self._watches

    def _check(self, watch: Watch, progress: int, now: float) -> None:
        with self._cond:
            if watch not in self._watches:
                return  # it ended meanwhile: firing now would stop the thread's next call
            if progress != watch.last:
                watch.last, watch.since = progress, now
            elif watch.fired_at is None and now - watch.since >= watch.timeout:
                watch.fired_at = progress
                self._engine.increment_epoch()
