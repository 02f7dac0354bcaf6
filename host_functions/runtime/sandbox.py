"""What every guest instance shares: a bounded store, logging, failure messages.

A store gets the memory limit (``memory.max.bytes`` per linear memory), an
epoch deadline one tick ahead whose callback stops the call only when its own
watch fired (:mod:`host_functions.runtime.watchdog`), and WASI only when
the transform enables it: no preopened directories, no inherited
environment, stdout and stderr going to the transform's logger.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import weakref
from typing import Any, Callable, Mapping

import wasmtime

from host_functions.runtime.host_modules import HOST_MODULES
from host_functions.runtime.wasmtime_internals import on_epoch_deadline
from host_functions.runtime.watchdog import ON_EPOCH_DEADLINE
from smt.errors import DataError

__all__ = [
    "Settings",
    "WasmGuestError",
    "new_store",
    "log_function",
    "describe_trap",
    "Failure",
    "GuestReported",
    "StartFailure",
    "error_cause",
    "forget_frames",
    "weak_callback",
    "WASI_MODULES",
    "WASM32_MEMORY_MAX_BYTES",
]

#: ABI log levels to Python logging levels.
LOG_LEVELS = {0: logging.DEBUG, 1: logging.INFO, 2: logging.WARNING, 3: logging.ERROR}

#: The import modules a guest's WASI calls come from (served when the transform enables ``wasi``).
WASI_MODULES = ("wasi_snapshot_preview1", "wasi_unstable")
#: Guest frames shown in a trap's backtrace (innermost first).
_BACKTRACE_FRAMES = 6


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
    max_outputs_per_record: int = 10_000
    max_output_bytes_per_batch: int = 512 * 1024 * 1024

    def key(self) -> tuple:
        """A hashable identity of these settings."""
        return tuple(sorted(self.guest_config.items())), *(
            getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "guest_config"
        )

    @property
    def logger(self) -> logging.Logger:
        return logging.getLogger(self.logger_name)

    def note_out_of_memory(self, size: int, row: int | None) -> None:
        """Log that the guest ran out of memory and its record runs again on a fresh instance.

        A guest that leaks (the Kafka Connect transformer's Rust SDK does, about
        110 bytes a record) fills any memory limit in the end; one line per
        instance lifetime says so without failing records.
        """
        where = f"record {row}" if row is not None else "the record"
        self.logger.info(
            "wasm transform '%s' (%s in %s): out of memory (guest memory at %d bytes of memory.max.bytes=%d); "
            "%s runs again on a fresh instance",
            self.alias,
            self.function_name,
            self.module_label,
            size,
            self.memory_max_bytes,
            where,
        )

    def too_many_outputs(self) -> str:
        """The cause of a record failed for fanning out past ``max.outputs.per.record``."""
        n = self.max_outputs_per_record
        return f"the record output more than {n} records (max.outputs.per.record={n})"

    def batch_outputs_too_big(self) -> str:
        """The cause of a record failed because the batch's outputs reached ``max.output.bytes.per.batch``."""
        n = self.max_output_bytes_per_batch
        return f"its outputs take the batch's outputs past {n} bytes (max.output.bytes.per.batch={n})"

    def error(
        self, cause: str, row: int | None = None, partition: int | None = None, offset: int | None = None
    ) -> WasmGuestError:
        """The error for a record: the transform, function, module and cause, then where the record was read.

        ``row`` is the record's index in its batch; ``partition`` and ``offset``
        are named when the source knows them (a file source does not).
        """
        read_at = " ".join(
            f"{name}={value}" for name, value in (("partition", partition), ("offset", offset)) if value is not None
        )
        where = f" on the record at {read_at}" if read_at else ""
        if row is not None:
            where += f" (row {row} of the batch)" if read_at else f" on row {row} of the batch"
        return WasmGuestError(
            f"wasm transform '{self.alias}' ({self.function_name} in {self.module_label}): {cause}{where}"
        )

    def row_error(self, cause: str, batch: Any, row: int) -> WasmGuestError:
        """:meth:`error` for row ``row`` of ``batch`` (a RecordBatch), where it was read included."""
        return self.error(cause, row, batch.partition[row], batch.offset[row])


def new_store(
    engine: wasmtime.Engine, settings: Settings, environment: Mapping[str, str] | None = None
) -> wasmtime.Store:
    """A bounded store; with WASI, ``environment`` is all the guest's environment holds."""
    store = wasmtime.Store(engine)
    store.set_limits(memory_size=settings.memory_max_bytes)
    store.set_epoch_deadline(1)
    on_epoch_deadline(store, ON_EPOCH_DEADLINE)
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


class StartFailure(Failure):
    """The guest could not be instantiated (its start function trapped or timed out): no record can run."""


#: The most a 32-bit linear memory can address: 65,536 pages of 64 KiB.
WASM32_MEMORY_MAX_BYTES = 1 << 32


def guest_memory_at_limit(memory: Any, store: wasmtime.Store, settings: Settings) -> int | None:
    """The guest memory size when a failure looks like memory exhaustion, else None.

    wasmtime-py exposes no limiter callback, so a failed ``memory.grow`` is
    invisible; a trap with the memory past half the limit is reported as out
    of memory, with the figures, since a grow of that size cannot succeed.
    The limit is the lowest of ``memory.max.bytes``, the maximum the guest
    declares for its memory and what a 32-bit memory can address: a guest
    that an earlier record grew to its own maximum traps in its allocator on
    the next record, and that record runs again on a fresh instance instead
    of failing (the runners' :class:`host_functions.runtime.retry.RetryPolicy`).
    """
    try:
        size = memory.data_len(store)
        limits = memory.type(store).limits
    except Exception:  # a broken store cannot tell; do not guess
        return None
    limit = min(settings.memory_max_bytes, WASM32_MEMORY_MAX_BYTES)
    if limits.max is not None:
        limit = min(limit, limits.max * _PAGE_BYTES)
    return size if size * 2 > limit else None


_PAGE_BYTES = 1 << 16


def describe_trap(exc: BaseException, *, timed_out: bool, memory_full: int | None, settings: Settings) -> str:
    """A clear cause for a trap or host error: what happened, then where in the guest.

    wasmtime's message starts with ``error while executing at wasm
    backtrace:``; the cause is its ``Caused by`` part, and the backtrace keeps
    the guest's function names (from its name section) when it has them.
    """
    if timed_out:
        return f"timed out after {settings.timeout_ms} ms (timeout.ms)"
    if isinstance(exc, Failure):
        return exc.cause
    code = getattr(exc, "trap_code", None)
    if memory_full:
        cause = (
            f"out of memory: guest memory at {memory_full} bytes of memory.max.bytes="
            f"{settings.memory_max_bytes} ({error_cause(exc)})"
        )
    elif code == wasmtime.TrapCode.MEMORY_OUT_OF_BOUNDS:
        cause = f"out-of-bounds memory access (bad pointer): {error_cause(exc)}"
    elif code == wasmtime.TrapCode.UNREACHABLE:
        cause = "trap: unreachable instruction executed (the guest aborted)"
    elif code == wasmtime.TrapCode.STACK_OVERFLOW:
        cause = "trap: call stack exhausted"
    elif isinstance(exc, wasmtime.Trap):
        cause = f"trap: {error_cause(exc)}"
    else:
        cause = f"{type(exc).__name__}: {error_cause(exc)}"
    return cause + backtrace(exc)


def error_cause(exc: BaseException) -> str:
    """What went wrong, in one line, from a wasmtime error: its first line and its ``Caused by`` lines.

    A trap's first line (``error while executing at wasm backtrace:``) says
    nothing and is left out; the backtrace is :func:`backtrace`'s business.
    """
    text = str(getattr(exc, "message", None) or exc).strip()
    if not text:
        return type(exc).__name__
    lines = text.splitlines()
    if "Caused by:" not in lines:
        return lines[0]
    causes = [line.strip() for line in lines[lines.index("Caused by:") + 1 :] if line.strip()]
    # "0: memory fault at ...", "1: wasm trap: out of bounds memory access"
    causes = [cause.split(": ", 1)[1] if cause.split(": ", 1)[0].isdigit() else cause for cause in causes]
    causes = [cause.removeprefix("wasm trap: ") for cause in causes]
    if lines[0].startswith("error while executing at wasm backtrace"):
        return ": ".join(causes)
    return ": ".join([lines[0].rstrip(":"), *causes])


def backtrace(exc: BaseException) -> str:
    """``; guest backtrace: inner <- outer <- ...`` (the guest's own frames), or "" when there are none.

    The names come from wasmtime's message, which demangles them (Rust, C++);
    a function without a name shows as ``function[N]``.  A long backtrace keeps
    its innermost and outermost frames, where the trap and the entry are.
    """
    names: list[list] = []  # [name, repeats], innermost first
    for module, name in _frames(str(getattr(exc, "message", None) or exc)):
        if module in HOST_MODULES:
            continue
        if name.startswith("<wasm function ") and name.endswith(">"):
            name = f"function[{name[len('<wasm function ') : -1]}]"
        if names and names[-1][0] == name:
            names[-1][1] += 1
        else:
            names.append([name, 1])
    if not names:
        return ""
    shown = [name if repeats == 1 else f"{name} (x{repeats})" for name, repeats in names]
    if len(shown) > _BACKTRACE_FRAMES:
        half = _BACKTRACE_FRAMES // 2
        shown = [*shown[:half], f"... ({len(shown) - 2 * half} more)", *shown[-half:]]
    return "; guest backtrace: " + " <- ".join(shown)


def _frames(message: str) -> list[tuple[str, str]]:
    """(module, function) of each frame of wasmtime's ``wasm backtrace:`` lines."""
    frames = []
    for line in message.splitlines():
        match = _FRAME.match(line)
        if match:
            frames.append((match.group("module"), match.group("function")))
        elif frames and not line.strip():
            break
    return frames


#: "    3:     0x48 - module!function" (the offset is absent for a frame without one)
_FRAME = re.compile(r"^\s*\d+:\s+(?:0x[0-9a-f]+ - )?(?P<module>[^!]*)!(?P<function>.*)$")


def forget_frames(exc: BaseException) -> BaseException:
    """``exc`` without tracebacks (its chain's too): their frames hold the store in reference cycles
    that only a garbage collection would free, and a WASI store must not outlive the interpreter."""
    seen = exc
    while seen is not None:
        seen.__traceback__ = None
        seen = seen.__context__ or seen.__cause__
    return exc


def weak_callback(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` without a strong reference to its instance.

    wasmtime-py keeps host-function callbacks in a process-wide table until
    the store is freed; a callback holding the instance (which holds the
    store) would keep every replaced instance, and its memories' address
    space reservations, alive forever.
    """
    ref = weakref.WeakMethod(method)

    def call(*args: Any) -> Any:
        bound = ref()
        if bound is None:
            raise Failure("the Wasm instance is gone")
        return bound(*args)

    return call
