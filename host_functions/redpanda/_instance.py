"""One Redpanda guest instance: ``_start`` on a thread of its own, fed a batch at a time.

A Redpanda guest's ``_start`` never returns: the SDK loops forever, blocking
in ``read_batch_header`` until the broker has a batch.  Here that call is the
one Python host function: it hands back the finished batch's outputs, waits
on a queue for the next batch, stages it and returns.  So the guest runs on
its own thread, and the caller's thread (:meth:`RedpandaInstance.run`) puts a
batch on the queue and waits for the outputs: two thread hand-offs per
batch, none per record (``read_next_record`` and ``write_record`` are served
in Wasm, see :mod:`host_functions.redpanda.adapter`).

While the guest runs, only its thread touches the store: the batch is
staged, and the outputs harvested, inside ``read_batch_header`` (or after a
trap, once the store is idle).  The caller's thread waits under the
watchdog, which interrupts the guest when the record it is on
(``C_CURRENT``) stops moving for ``timeout.ms``.
"""

from __future__ import annotations

import dataclasses
import queue
import struct
import threading
import time
import weakref

import numpy as np
import wasmtime

from host_functions.redpanda import adapter as A
from host_functions.redpanda._guest import RedpandaGuest
from host_functions.redpanda.batches import Outputs, harvest_outputs
from host_functions.runtime.engine import WasmRuntime
from host_functions.runtime.memory import GuestMemory
from host_functions.runtime.sandbox import (
    Failure,
    Settings,
    describe_trap,
    forget_frames,
    guest_memory_at_limit,
    new_store,
    weak_callback,
)
from host_functions.runtime.staging import Layout

__all__ = ["Batch", "Outcome", "RedpandaInstance", "StartFailed", "failure_cause"]

#: How long the caller waits past a fired time limit before it gives the instance up (a guest
#: stuck outside Wasm, where the interrupt cannot reach it).
_ABANDON_AFTER_SECONDS = 5.0
_STOP = object()


class StartFailed(Exception):
    """The guest did not reach ``read_batch_header``: instantiation or ``_start`` failed."""


class _Stopped(Exception):
    """Raised in ``read_batch_header`` to end the guest's thread."""


@dataclasses.dataclass
class Outcome:
    """What a run gave: the committed outputs and, when it stopped early, the row that failed and why."""

    outputs: Outputs
    failed_row: int | None = None
    error: BaseException | None = None
    #: status, error ptr/len from the control block, and guest memory size when it looks exhausted
    status: int = 0
    detail: tuple[int, int] = (0, 0)
    memory_full: int | None = None
    timed_out: bool = False


@dataclasses.dataclass(frozen=True)
class Batch:
    """What ``read_batch_header`` needs for one run: the staged input and the header fields."""

    layout: Layout
    count: int
    max_body: int
    base_offset: int
    base_timestamp: int
    max_timestamp: int


class RedpandaInstance:
    """A guest instance and its thread; :meth:`run` one batch at a time, :meth:`close` when done."""

    def __init__(
        self,
        rt: WasmRuntime,
        adapter: wasmtime.Module,
        shim: wasmtime.Module,
        guest: RedpandaGuest,
        settings: Settings,
        environment: dict[str, str],
        topics: list[str],
        max_outputs: int,
    ) -> None:
        self.settings, self.topics = settings, topics
        self._watchdog = rt.watchdog
        self._commands: queue.SimpleQueue = queue.SimpleQueue()
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._guest = _GuestSide(
            rt.engine, adapter, shim, guest, settings, environment, topics, max_outputs, self._commands, self._events
        )
        self._thread = threading.Thread(target=self._guest.main, name=f"smt-redpanda-{settings.alias}", daemon=True)
        # the thread holds the store; stop it when this handle goes away (or at exit) even without close()
        self._finalizer = weakref.finalize(self, _stop, self._commands, self._thread, self._guest)
        self.alive = False
        self._thread.start()
        outcome = self._wait()
        if outcome is not None:
            self.close()
            raise StartFailed(_start_failure(outcome, settings))
        self.alive = True

    def run(self, batch: Batch) -> Outcome:
        """Run every staged record; the outcome names the row that failed, if one did."""
        self._commands.put(batch)
        outcome = self._wait()
        if outcome is None:
            raise AssertionError("the guest thread reported ready twice")  # pragma: no cover - protocol bug
        if outcome.failed_row is not None:
            self.alive = False  # never reused after a trap
        return outcome

    def close(self) -> None:
        self.alive = False
        self._finalizer()

    def _wait(self) -> Outcome | None:
        """The guest's next report (None: it is waiting for a batch), under the time limit."""
        timeout = self.settings.timeout_ms / 1000
        with self._watchdog.watch(self._guest.progress_reader(), timeout, thread=self._thread.ident) as watch:
            while True:
                try:
                    event = self._events.get(timeout=min(timeout, 0.25))
                except queue.Empty:
                    if watch.fired_at is not None and time.monotonic() - watch.since > timeout + _ABANDON_AFTER_SECONDS:
                        self.close()
                        empty = self._guest.empty_outputs()
                        return Outcome(empty, failed_row=self._guest.current_row(), timed_out=True)
                    continue
                if isinstance(event, Outcome) and event.failed_row is not None:
                    event.timed_out = watch.fired_at is not None
                return event


def _stop(commands: queue.SimpleQueue, thread: threading.Thread, guest: "_GuestSide") -> None:
    commands.put(_STOP)
    if thread is not threading.current_thread():
        thread.join(timeout=1.0)
    if not thread.is_alive():
        guest.release()


def _start_failure(outcome: Outcome, settings: Settings) -> str:
    return f"the guest failed before asking for its first batch: {failure_cause(outcome, settings, 0)}"


def failure_cause(outcome: Outcome, settings: Settings, max_outputs: int) -> str:
    """Why the record ``outcome.failed_row`` failed, for its WasmGuestError."""
    status, (pointer, length), error = outcome.status, outcome.detail, outcome.error
    if outcome.timed_out:
        return describe_trap(error or Failure(""), timed_out=True, memory_full=None, settings=settings)
    if status == A.STATUS_BAD_POINTER:
        return f"bad pointer: ({pointer}, {length}) is outside guest memory"
    if status == A.STATUS_OUTPUT_FULL:
        return f"the record's output exceeds memory.max.bytes={settings.memory_max_bytes}"
    if status == A.STATUS_TOO_MANY_OUTPUTS:
        return f"the guest wrote more than max.outputs.per.record={max_outputs} records for one record"
    if status == A.STATUS_WRITE_BEFORE_READ:
        return "the guest called write_record before read_next_record"
    if isinstance(error, wasmtime.ExitTrap):
        return f"the guest exited with code {error.code} (its stderr is in the log)"
    return describe_trap(error, timed_out=False, memory_full=outcome.memory_full, settings=settings)


class _GuestSide:
    """Everything the guest's thread owns: the store, the instances, the staging and harvesting."""

    def __init__(
        self,
        engine: wasmtime.Engine,
        adapter: wasmtime.Module,
        shim: wasmtime.Module,
        guest: RedpandaGuest,
        settings: Settings,
        environment: dict[str, str],
        topics: list[str],
        max_outputs: int,
        commands: queue.SimpleQueue,
        events: queue.SimpleQueue,
    ) -> None:
        self.engine, self.adapter, self.shim, self.guest = engine, adapter, shim, guest
        self.settings, self.environment, self.topics, self.max_outputs = settings, environment, topics, max_outputs
        self.commands, self.events = commands, events
        self.in_batch = False
        self._control: GuestMemory | None = None  # $in and its control block, once instantiated
        self._progress: list = [None]  # its C_CURRENT reader, for the watchdog (which must not hold this object)

    # --- the thread -----------------------------------------------------------

    def main(self) -> None:
        try:
            self._instantiate()
            self.start_func(self.store)
            error: BaseException = Failure("the guest's _start returned: it no longer reads batches")
        except _Stopped as stopped:
            forget_frames(stopped)
            self.release()
            return
        except BaseException as exc:  # a trap, an exit, a host failure: reported, never raised here
            error = forget_frames(exc)
        self.events.put(self._failed(error))

    def _instantiate(self) -> None:
        # WASI with no files and no network; the environment holds only what the transform sets
        self.store = store = new_store(self.engine, self.settings, environment=self.environment)
        linker = wasmtime.Linker(self.engine)
        linker.define_wasi()
        linker.allow_shadowing = True  # the adapter serves clock_time_get and poll_oneoff (see adapter)
        shim = wasmtime.Instance(store, self.shim, [])
        for module, name, _, _ in A.SHIM_FUNCTIONS:
            linker.define(store, module, name, shim.exports(store)[name])
        guest_exports = linker.instantiate(store, self.guest.module).exports(store)
        self.guest_memory = guest_exports["memory"]
        self.start_func = guest_exports["_start"]
        i32 = wasmtime.ValType.i32()
        # weakly: wasmtime-py keeps callbacks until the store is freed, and this object holds the store
        read_batch_header = wasmtime.Func(
            store, wasmtime.FuncType([i32] * 10, [i32]), weak_callback(self.read_batch_header)
        )
        adapter = wasmtime.Instance(
            store, self.adapter, [self.guest_memory, shim.exports(store)["table"], read_batch_header]
        )
        self.memories = {
            name: GuestMemory(adapter.exports(store)[name], store, f"the adapter's ${name}")
            for name in ("in",) + A.OUTPUT_MEMORIES
        }
        self._control = self.memories["in"]
        self._progress[0] = self._control.i32_reader(A.C_CURRENT)
        self._stage_topics()

    # --- the one Python host function -------------------------------------------

    def read_batch_header(self, *pointers: int) -> int:
        if self.in_batch:
            self.in_batch = False
            self.events.put(Outcome(self.harvest()))
        else:
            self.events.put(None)  # ready: _start reached its loop
        command = self.commands.get()
        if command is _STOP:
            raise _Stopped()
        self._load(command)
        self._write_header(pointers, command)
        self.store.set_epoch_deadline(1)  # the engine's epoch may have moved while this guest waited
        self.in_batch = True
        return command.max_body

    def _write_header(self, pointers: tuple[int, ...], batch: Batch) -> None:
        values = (
            ("<q", batch.base_offset),
            ("<i", batch.count),
            ("<i", -1),
            ("<h", 0),
            ("<i", batch.count - 1),
            ("<q", batch.base_timestamp),
            ("<q", batch.max_timestamp),
            ("<q", -1),
            ("<h", -1),
            ("<i", -1),
        )
        guest = GuestMemory(self.guest_memory, self.store)
        size = guest.size
        for pointer, (layout, value) in zip(pointers, values):
            data = struct.pack(layout, value)
            if pointer < 0 or pointer + len(data) > size:
                raise Failure(
                    f"bad pointer: read_batch_header was given ({pointer}, {len(data)}), outside guest "
                    f"memory of {size} bytes"
                )
            guest.write(pointer, data)

    # --- staging and harvesting ------------------------------------------------------

    def _word(self, offset: int) -> int:
        return self._control.i32(offset)

    def progress_reader(self):
        """Reads the record being processed, for the watchdog thread.

        It holds only the address: the watchdog keeps its last watches after they end, and a
        WASI store must not outlive the interpreter.
        """
        cell = self._progress

        def progress() -> int:
            read = cell[0]
            return read() if read is not None else -1

        return progress

    def release(self) -> None:
        """Free the store (the thread has ended): exception frames must not keep it alive until exit."""
        self._control = self._progress[0] = None
        self.store = self.memories = self.guest_memory = self.start_func = None

    def current_row(self) -> int:
        return self._word(A.C_CURRENT) if self._control is not None else 0

    def _stage_topics(self) -> None:
        self.topic_layout = Layout(A.CONTROL_SIZE)
        names = [topic.encode() for topic in self.topics]
        entries = [(self.topic_layout.place_array(np.frombuffer(name or b"\0", np.uint8)), len(name)) for name in names]
        self.topic_table = np.array(entries, dtype=np.int32).reshape(-1)

    def _load(self, batch: Batch) -> None:
        """Copy the batch's input after the topic names into ``$in`` and set the control words."""
        layout = batch.layout
        needed = layout.size + self.topic_layout.size + 8 * len(self.topics) + 64
        control = self._control
        control.grow_to(needed, f"the staged input ({layout.size} bytes)", self.settings)
        self._progress[0] = control.i32_reader(A.C_CURRENT)  # where $in is after growing
        control.zero(0, A.C_COMMITTED)
        layout.copy_parts(control)
        for offset, value in layout.words.items():
            control.set_i32(offset, value)
        # the output topic names go after the batch: the same every time, but the batch moves them
        shift = (layout.size + 7) & ~7
        self.topic_layout.copy_parts(control, at=shift)
        table = self.topic_table.copy()
        table[0::2] += shift
        table_at = (shift + self.topic_layout.size + 7) & ~7
        control.write(table_at, table)
        control.set_i32(A.C_TOPIC_TABLE, table_at)
        control.set_i32(A.C_TOPIC_COUNT, len(self.topics))
        control.set_i32(A.C_COUNT, batch.count)
        control.set_i32(A.C_MAX_OUTPUTS, self.max_outputs)
        control.set_i64(A.C_WALLTIME, batch.base_timestamp)

    def harvest(self) -> Outputs:
        """Copy out the committed outputs and forget them (the next batch starts from zero)."""
        outputs = harvest_outputs(self._word, self._copy)
        self._control.zero(A.C_COMMITTED, 4 * 6)
        return outputs

    def empty_outputs(self) -> Outputs:
        empty = np.zeros(0, np.uint8)
        return Outputs(empty.view(A.RECORD_META), empty, empty, empty.view(A.HEADER_META), empty, empty)

    def _copy(self, memory: str, nbytes: int) -> np.ndarray:
        out = np.empty(nbytes, dtype=np.uint8)
        self.memories[memory].copy_to(out.ctypes.data, 0, nbytes)
        return out

    def _failed(self, error: BaseException) -> Outcome:
        """The outcome of a guest that stopped: what it committed, and the row it was on."""
        if self._control is None:
            return Outcome(self.empty_outputs(), failed_row=0, error=error)
        memory_full = guest_memory_at_limit(self.guest_memory, self.store, self.settings)
        return Outcome(
            self.harvest() if self.in_batch else self.empty_outputs(),
            failed_row=self.current_row(),
            error=error,
            status=self._word(A.C_STATUS),
            detail=(self._word(A.C_ERR_PTR) & 0xFFFFFFFF, self._word(A.C_ERR_LEN) & 0xFFFFFFFF),
            memory_full=memory_full,
        )
