"""What every guest instance shares: a bounded store, logging, failure messages.

A store gets the memory limit (``memory.max.bytes`` per linear memory), an
epoch deadline one tick ahead (the watchdog's interrupt), and WASI only when
the transform enables it: no preopened directories, no inherited
environment, stdout and stderr going to the transform's logger.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Callable, Mapping

import wasmtime

from smt.errors import DataError

__all__ = ["Settings", "WasmGuestError", "new_store", "log_function", "describe_trap", "Failure", "GuestReported"]

#: ABI log levels to Python logging levels.
LOG_LEVELS = {0: logging.DEBUG, 1: logging.INFO, 2: logging.WARNING, 3: logging.ERROR}


class WasmGuestError(DataError):
    """A record failed inside a Wasm transform; the message names the transform, function and cause."""


@dataclasses.dataclass(frozen=True)
class Settings:
    """Everything about a Wasm transform that is not the module itself."""

    alias: str
    module_label: str
    function_name: str
    timeout_ms: int
    memory_max_bytes: int
    wasi: bool
    guest_config: Mapping[str, str]
    logger_name: str

    def key(self) -> tuple:
        """A hashable identity of these settings."""
        return tuple(sorted(self.guest_config.items())), *(
            getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "guest_config"
        )

    @property
    def logger(self) -> logging.Logger:
        return logging.getLogger(self.logger_name)

    def error(self, cause: str, row: int | None = None) -> WasmGuestError:
        where = f" on record {row}" if row is not None else ""
        return WasmGuestError(
            f"wasm transform '{self.alias}' ({self.function_name} in {self.module_label}): {cause}{where}"
        )


def new_store(engine: wasmtime.Engine, settings: Settings, environment: Mapping[str, str] | None = None) -> wasmtime.Store:
    """A bounded store; with WASI, ``environment`` is all the guest's environment holds."""
    store = wasmtime.Store(engine)
    store.set_limits(memory_size=settings.memory_max_bytes)
    store.set_epoch_deadline(1)
    if settings.wasi:
        wasi = wasmtime.WasiConfig()
        if environment:
            wasi.env = sorted(environment.items())
        logger = settings.logger
        wasi.stdout_custom = _stream_logger(logger, logging.INFO, "stdout")
        wasi.stderr_custom = _stream_logger(logger, logging.WARNING, "stderr")
        store.set_wasi(wasi)
    return store


def _stream_logger(logger: logging.Logger, level: int, stream: str) -> Callable[[bytes], None]:
    def write(data: bytes) -> None:
        for line in data.decode("utf-8", "replace").splitlines():
            logger.log(level, "[%s] %s", stream, line)

    return write


def log_function(settings: Settings, read: Callable[[int, int], bytes]) -> Callable[[int, int, int], None]:
    """The ``log(level, ptr, len)`` host function; ``read`` reads guest memory."""
    logger = settings.logger

    def log(level: int, ptr: int, length: int) -> None:
        text = read(ptr, length).decode("utf-8", "replace")
        logger.log(LOG_LEVELS.get(level, logging.INFO), "%s", text)

    return log


class Failure(Exception):
    """A record failure detected by the host (not a trap); ``cause`` is the message."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


class GuestReported(Failure):
    """The guest returned an error (bit 31 of the returned length); the instance stays usable."""


def guest_memory_at_limit(memory: Any, store: wasmtime.Store, settings: Settings) -> int | None:
    """The guest memory size when a failure looks like memory exhaustion, else None.

    wasmtime-py exposes no limiter callback, so a failed ``memory.grow`` is
    invisible; a trap with the memory past half the limit is reported as out
    of memory, with the figures, since a grow of that size cannot succeed.
    """
    try:
        size = memory.data_len(store)
    except Exception:  # a broken store cannot tell; do not guess
        return None
    return size if size * 2 > settings.memory_max_bytes else None


def describe_trap(exc: BaseException, *, timed_out: bool, memory_full: int | None, settings: Settings) -> str:
    """A short, clear cause for a trap or host error."""
    if timed_out:
        return f"timed out after {settings.timeout_ms} ms (timeout.ms)"
    if isinstance(exc, Failure):
        return exc.cause
    code = getattr(exc, "trap_code", None)
    if memory_full:
        return (
            f"out of memory: guest memory at {memory_full} bytes of memory.max.bytes="
            f"{settings.memory_max_bytes} ({_first_line(exc)})"
        )
    if code == wasmtime.TrapCode.MEMORY_OUT_OF_BOUNDS:
        return f"out-of-bounds memory access (bad pointer): {_first_line(exc)}"
    if code == wasmtime.TrapCode.UNREACHABLE:
        return "trap: unreachable instruction executed (the guest aborted)"
    if code == wasmtime.TrapCode.STACK_OVERFLOW:
        return "trap: call stack exhausted"
    if isinstance(exc, wasmtime.Trap):
        return f"trap: {_first_line(exc)}"
    return f"{type(exc).__name__}: {_first_line(exc)}"


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "message", None) or exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__
