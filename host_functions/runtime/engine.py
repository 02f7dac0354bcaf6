"""Process-wide Wasm machinery: one engine, compiled-module cache, idle instances.

Spark runs one Python worker per task slot and reuses it across tasks, so
compiling a guest once per process (keyed by the sha256 of its bytes) pays
off; compiled code is also serialized to a cache directory so a fresh worker
deserializes instead of compiling.  All stores share the engine, which is
what lets one watchdog thread interrupt any of them through the engine's
epoch.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import logging
import os
import tempfile
import threading
from typing import Any, Callable, Hashable, TypeVar

import wasmtime

from host_functions.runtime.sandbox import Failure, Settings, StartFailure, describe_trap
from host_functions.runtime.watchdog import Watchdog, interrupted

__all__ = ["WasmRuntime", "runtime"]

_log = logging.getLogger("smt.host_functions")

T = TypeVar("T")

try:
    from importlib.metadata import version as _version

    _WASMTIME_VERSION = _version("wasmtime")
except Exception:  # pragma: no cover - metadata missing in odd installs
    _WASMTIME_VERSION = "unknown"

#: Idle instances kept per guest and settings (see WasmRuntime.put_idle).
_IDLE_PER_KEY = 2

#: Set to a directory to cache compiled modules there; "off" disables it.
CACHE_DIR_ENV = "SMT_WASM_CACHE_DIR"


class WasmRuntime:
    """The engine, the module cache and the watchdog of this process."""

    def __init__(self) -> None:
        config = wasmtime.Config()
        config.wasm_multi_memory = True
        config.wasm_bulk_memory = True
        config.epoch_interruption = True
        self.engine = wasmtime.Engine(config)
        self.watchdog = Watchdog(self.engine)
        self._modules: dict[str, wasmtime.Module] = {}
        self._idle: dict[Hashable, list[Any]] = {}
        self._inputs_read: dict[Hashable, frozenset[str]] = {}
        self._lock = threading.Lock()
        atexit.register(self._idle.clear)  # free the stores while the interpreter still runs

    def start(
        self,
        settings: Settings,
        instantiate: Callable[[], T],
        cannot_start: str = "the guest could not start (instantiation and start function)",
    ) -> T:
        """``instantiate()`` under the time limit: a guest's start function runs when it is instantiated.

        Every ABI creates its instances through this, on the driver and on the
        executors, so a start function that never returns is cut off after
        ``timeout.ms`` like a record would be.  ``instantiate`` must create its
        store with :func:`host_functions.runtime.sandbox.new_store` (the epoch deadline).
        Raises :class:`StartFailure`, ``cannot_start: cause`` (a timeout, a trap, a host function's refusal).
        """
        with self.watchdog.watch(lambda: 0, settings.timeout_ms / 1000):
            try:
                return instantiate()
            except StartFailure:
                raise
            except (wasmtime.Trap, wasmtime.WasmtimeError, Failure) as exc:
                cause = describe_trap(exc, timed_out=interrupted(exc), memory_full=None, settings=settings)
                raise StartFailure(f"{cannot_start}: {cause}") from exc

    def compile(self, wasm: bytes) -> wasmtime.Module:
        """The compiled module for ``wasm`` (bytes or WAT text), cached by content hash.

        Raises ``wasmtime.WasmtimeError`` when the bytes are not a valid module.
        """
        digest = hashlib.sha256(wasm).hexdigest()
        with self._lock:
            module = self._modules.get(digest)
        if module is None:
            module = self._load_or_compile(digest, wasm)
            with self._lock:
                self._modules.setdefault(digest, module)
        return module

    def take_idle(self, key: Hashable) -> Any | None:
        """An idle instance left by :meth:`put_idle` under ``key``, or None."""
        with self._lock:
            idle = self._idle.get(key)
            return idle.pop() if idle else None

    def put_idle(self, key: Hashable, instance: Any) -> None:
        """Keep a warm instance for the next batch of a transform with the same guest and settings.

        Spark unpickles a transform for every task, and a Python worker runs
        many tasks: a warm instance (memories grown, pages faulted in) spares
        each task's first batch tens of milliseconds.  A few per key are kept
        (one per concurrent user); the rest are dropped.
        """
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if len(idle) < _IDLE_PER_KEY:
                idle.append(instance)

    def inputs_read(self, key: Hashable) -> frozenset[str]:
        """The input columns guests under ``key`` were seen to read in this process (none at first)."""
        with self._lock:
            return self._inputs_read.get(key, frozenset())

    def note_inputs_read(self, key: Hashable, columns: frozenset[str]) -> None:
        """Remember that guests under ``key`` read ``columns``: later batches stage them up front."""
        with self._lock:
            self._inputs_read[key] = self._inputs_read.get(key, frozenset()) | columns

    def _load_or_compile(self, digest: str, wasm: bytes) -> wasmtime.Module:
        cache_dir = _trusted_cache_dir()
        path = os.path.join(cache_dir, f"{digest}.cwasm") if cache_dir else None
        if path and os.path.exists(path):
            try:
                return wasmtime.Module.deserialize_file(self.engine, path)
            except wasmtime.WasmtimeError:
                _log.debug("stale compiled-module cache entry %s; recompiling", path)
        module = wasmtime.Module(self.engine, wasm)
        if path:
            try:
                tmp = f"{path}.{os.getpid()}.tmp"
                with open(tmp, "wb") as out:
                    out.write(module.serialize())
                os.replace(tmp, path)
            except OSError as exc:  # a read-only disk only costs recompiles
                _log.debug("cannot write compiled-module cache %s: %s", path, exc)
        return module


def _cache_dir() -> str | None:
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured == "off":
        return None
    if configured:
        return configured
    return os.path.join(tempfile.gettempdir(), f"smt-wasm-cache-{os.getuid()}-wasmtime{_WASMTIME_VERSION}")


def _trusted_cache_dir() -> str | None:
    """The cache directory, created private; None when it is not safe to load code from.

    Deserialized modules are native code that is run as is, so a directory
    another user could write to must not be used.
    """
    cache_dir = _cache_dir()
    if cache_dir is None:
        return None
    try:
        os.makedirs(cache_dir, mode=0o700, exist_ok=True)
        info = os.stat(cache_dir)
    except OSError as exc:
        _log.debug("compiled-module cache %s unavailable: %s", cache_dir, exc)
        return None
    if info.st_uid != os.getuid() or info.st_mode & 0o022:
        _log.warning("not using compiled-module cache %s: writable by other users", cache_dir)
        return None
    return cache_dir


@functools.lru_cache(maxsize=1)
def runtime() -> WasmRuntime:
    """This process's runtime, created on first use (also in Spark workers)."""
    return WasmRuntime()
