"""One filter instance: started as a proxy starts a plugin, fed connections of Produce requests.

Start (Envoy's order): ``_initialize`` (then ``main``) or ``_start``,
``proxy_on_context_create`` for the plugin (root) context,
``proxy_on_vm_start`` and ``proxy_on_configure`` with the plugin configuration.  A connection:
``proxy_on_context_create`` (its stream context), ``proxy_on_new_connection``,
then ``proxy_on_downstream_data`` once per request the host sends (the size
passed is everything buffered: a filter that returned Pause sees the next
request appended), and at the end ``proxy_on_downstream_connection_close``,
``proxy_on_done``, ``proxy_on_log`` and ``proxy_on_delete``.

Every call into the filter runs under the watchdog with ``timeout.ms`` and in
a store bounded by ``memory.max.bytes``; a call that traps, times out or
breaks a host rule raises :class:`FilterFailed`, and the instance is never
used again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import weakref

import wasmtime

from host_functions.proxy_wasm._guest import FilterGuest
from host_functions.proxy_wasm._host import DOWNSTREAM_DATA, PLUGIN_CONFIGURATION, FilterHost
from host_functions.runtime.engine import WasmRuntime
from host_functions.runtime.sandbox import (
    Failure,
    Settings,
    describe_trap,
    forget_frames,
    guest_memory_at_limit,
    new_store,
)

__all__ = ["FilterFailed", "FilterInstance", "Fed", "StartFailed"]

ROOT_CONTEXT = 1
ACTION_CONTINUE, ACTION_PAUSE = 0, 1
PEER_REMOTE = 2


class FilterFailed(Exception):
    """A call into the filter failed; the message is the cause.

    ``memory_full``: the filter's memory size when it failed for want of memory (else None).
    """

    def __init__(self, cause: str, memory_full: int | None = None) -> None:
        super().__init__(cause)
        self.cause, self.memory_full = cause, memory_full


class StartFailed(FilterFailed):
    """The filter could not be started (instantiation, start functions, vm start or configure)."""


@dataclasses.dataclass
class Fed:
    """What the filter did with the downstream data: pass it on (the buffer, as rewritten), hold it, or close."""

    action: int
    closed: bool
    forwarded: bytearray | None  # the buffer, when the filter let it through


class FilterInstance:
    """A started filter; :meth:`open`, :meth:`feed` and :meth:`close_connection`, one connection at a time."""

    def __init__(
        self,
        rt: WasmRuntime,
        guest: FilterGuest,
        settings: Settings,
        plugin_configuration: bytes,
        max_buffer_bytes: int,
    ) -> None:
        self.rt, self.guest, self.settings = rt, guest, settings
        self.alive = False
        self._ids = itertools.count(ROOT_CONTEXT + 1)
        self._in_call = [0, False]  # calls made, and whether one runs (read by the watchdog's thread)
        self._connection_watch: contextlib.ExitStack | None = None
        self._watch = None
        self.host = FilterHost(settings, plugin_configuration, max_buffer_bytes)
        self.store = new_store(rt.engine, settings)  # WASI without files, network or environment
        # a WASI store must be gone before the interpreter is (freeing one later aborts the process): dropped
        # with this instance, or at exit if something still holds it
        weakref.finalize(self, self.__dict__.pop, "store", None)
        linker = wasmtime.Linker(rt.engine)
        linker.define_wasi()
        self.host.define(linker, guest.host_imports)
        try:
            instance = self._call(lambda: linker.instantiate(self.store, guest.module))
            exports = instance.exports(self.store)
            self.exports = {name: exports[name] for name in guest.exports}
            self.host.memory, self.host.allocate = self.exports["memory"], self.exports[guest.allocator]
            self._start()
        except FilterFailed as exc:
            raise StartFailed(exc.cause) from None
        self.alive = True

    def _start(self) -> None:
        if "_initialize" in self.guest.exports:
            self._call_export("_initialize")
            if "main" in self.guest.exports:
                self._call_export("main", 0, 0)
        elif "_start" in self.guest.exports:
            self._call_export("_start")
        self.host.contexts.add(ROOT_CONTEXT)
        self._call_export("proxy_on_context_create", ROOT_CONTEXT, 0)  # as Envoy: the root context, then vm start
        if "proxy_on_vm_start" in self.guest.exports and not self._call_export("proxy_on_vm_start", ROOT_CONTEXT, 0):
            raise FilterFailed("proxy_on_vm_start returned false: the filter refused to start")
        size = len(self.host.buffers[PLUGIN_CONFIGURATION])
        if "proxy_on_configure" in self.guest.exports and not self._call_export(
            "proxy_on_configure", ROOT_CONTEXT, size
        ):
            raise FilterFailed(
                "proxy_on_configure returned false: the filter refused its configuration "
                "(transforms.X.config.*, see the log)"
            )

    # --- connections --------------------------------------------------------------------

    def open(self) -> int:
        """A new connection (stream context); its id.  The connection's calls share one watch (see :meth:`_call`)."""
        self._end_watch()
        self._connection_watch = contextlib.ExitStack()
        self._watch = self._connection_watch.enter_context(
            self.rt.watchdog.watch(_progress_reader(self._in_call), self.settings.timeout_ms / 1000)
        )
        context = next(self._ids)
        self.host.set_connection(context)
        self.host.contexts.add(context)
        self._call_export("proxy_on_context_create", context, ROOT_CONTEXT)
        if "proxy_on_new_connection" in self.guest.exports:
            self._call_export("proxy_on_new_connection", context)
        return context

    def feed(self, context: int, data: bytes, end_of_stream: bool = False) -> Fed:
        """Append ``data`` to the downstream buffer and let the filter see it all."""
        buffer = self.host.buffers[DOWNSTREAM_DATA]
        buffer += data
        action = self._call_export("proxy_on_downstream_data", context, len(buffer), int(end_of_stream))
        buffer = self.host.buffers[DOWNSTREAM_DATA]
        passed = (action == ACTION_CONTINUE or self.host.continued) and not self.host.closed
        forwarded = buffer if passed else None
        if passed:
            self.host.buffers[DOWNSTREAM_DATA] = bytearray()  # the forwarded bytes are the caller's now
            self.host.continued = False
        return Fed(action, self.host.closed, forwarded)

    def close_connection(self, context: int) -> None:
        """Close the connection as a client would, and let the filter forget its context."""
        if "proxy_on_downstream_connection_close" in self.guest.exports:
            self._call_export("proxy_on_downstream_connection_close", context, PEER_REMOTE)
        try:
            for callback in ("proxy_on_done", "proxy_on_log", "proxy_on_delete"):
                if callback in self.guest.exports:
                    self._call_export(callback, context)
            self.host.contexts.discard(context)
        finally:
            self._end_watch()

    def abandon(self) -> None:
        """Give the instance up mid-connection (it is not reused)."""
        self.alive = False
        self._end_watch()

    def _end_watch(self) -> None:
        if self._connection_watch is not None:
            self._connection_watch.close()
        self._connection_watch = self._watch = None

    # --- calls --------------------------------------------------------------------------

    def _call_export(self, name: str, *args: int) -> int:
        func = self.exports[name]
        result = self._call(lambda: func(self.store, *args))
        return 0 if result is None else int(result)

    def _call(self, call):
        """Run ``call`` under the time limit; a failure kills the instance and raises FilterFailed.

        Calls on a connection share the connection's watch (one watch per batch, not per call: each
        new watch wakes the watchdog thread, which then competes for the GIL); its progress holds
        still only while a call runs, so only a call can time out.  Start-up calls get a watch each.
        """
        self.store.set_epoch_deadline(1)  # the engine's epoch moves on while this instance waits
        with contextlib.ExitStack() as own:
            watch = self._watch or own.enter_context(self.rt.watchdog.watch(lambda: 0, self.settings.timeout_ms / 1000))
            self._in_call[0], self._in_call[1] = self._in_call[0] + 1, True
            try:
                return call()
            except (wasmtime.WasmtimeError, wasmtime.Trap, Failure) as exc:
                forget_frames(exc)  # their frames hold the store
                self.alive = False
                timed_out = watch.fired_at is not None
                self._end_watch()
                memory = getattr(self, "exports", {}).get("memory")
                memory_full = (
                    None
                    if memory is None or timed_out or isinstance(exc, Failure)
                    else guest_memory_at_limit(memory, self.store, self.settings)
                )
                raise FilterFailed(self._describe(exc, timed_out, memory_full), memory_full) from None
            finally:
                self._in_call[1] = False

    def _describe(self, exc: BaseException, timed_out: bool, memory_full: int | None) -> str:
        if isinstance(exc, wasmtime.ExitTrap):
            return f"the filter exited with code {exc.code} (its stderr is in the log)"
        return describe_trap(exc, timed_out=timed_out, memory_full=memory_full, settings=self.settings)


def _progress_reader(in_call: list):
    """Progress for the connection's watch: the call's number while a call runs, a new number otherwise.

    It holds only the cell (the watchdog keeps its last watches after they end).
    """
    idle = itertools.count(-1, -1)

    def progress() -> int:
        return in_call[0] if in_call[1] else next(idle)

    return progress
