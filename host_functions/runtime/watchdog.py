"""The watchdog: a thread that interrupts a guest call whose progress stalls past its timeout.

Every store shares the engine's epoch and has a deadline one tick ahead
(:func:`host_functions.runtime.sandbox.new_store`), so bumping the epoch
interrupts whatever guest runs; a call that did not time out itself sees no
``fired_at`` on its :class:`Watch` and retries (:mod:`host_functions.runtime.retry`).
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Callable, Iterator

import wasmtime

__all__ = ["Watch", "Watchdog"]


class Watch:
    """One watched call: the watchdog interrupts it when progress stalls."""

    __slots__ = ("read_progress", "timeout", "last", "since", "fired_at")

    def __init__(self, read_progress: Callable[[], int], timeout: float) -> None:
        self.read_progress = read_progress
        self.timeout = timeout
        self.last = read_progress()
        self.since = time.monotonic()
        #: progress value when the watchdog fired, or None
        self.fired_at: int | None = None


class Watchdog:
    """Interrupts a call whose progress counter has not moved for its timeout.

    The per-record limit inside one batch call cannot be a store deadline
    (the deadline is set from the host, between calls), so each call exposes
    a counter that moves on every record; when it stalls past the timeout the
    watchdog bumps the engine epoch, and every store's deadline is one tick
    ahead, so the running guest traps with an interrupt.  Other stores running
    at that moment are interrupted too: their callers see no ``fired_at`` on
    their own watch and retry the record.
    """

    def __init__(self, engine: wasmtime.Engine) -> None:
        self._engine = engine
        self._watches: set[Watch] = set()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def watch(self, read_progress: Callable[[], int], timeout: float) -> Iterator[Watch]:
        watch = Watch(read_progress, timeout)
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
                with self._cond:
                    if watch not in self._watches:
                        continue  # it ended while this thread slept: firing now would interrupt someone else
                progress = watch.read_progress()
                if progress != watch.last:
                    watch.last, watch.since = progress, now
                elif watch.fired_at is None and now - watch.since >= watch.timeout:
                    watch.fired_at = progress
                    self._engine.increment_epoch()
