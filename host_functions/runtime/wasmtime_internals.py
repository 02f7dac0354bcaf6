"""The one place that calls into wasmtime-py's private API, checked when it is imported.

Two things need it.  The fast path calls the adapter's ``run(start, end)`` once per chunk;
``Func.__call__`` looks the function type up and converts every argument
through ``Val`` on each call (tens of microseconds).  The signature is fixed,
so the argument and result arrays are built once and the C API is called
directly, through wasmtime-py's ``_ffi`` bindings.  And a store's epoch
deadline runs a callback (:func:`on_epoch_deadline`), which wasmtime-py does
not expose: without one, every store traps when the engine's epoch moves.
The bindings are not public: a
wasmtime-py release that changes them must fail loudly at import, naming the
version, not silently run slower or crash.
"""

from __future__ import annotations

import ctypes
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Callable

import wasmtime

__all__ = [
    "direct_call",
    "epoch_deadline_callback",
    "on_epoch_deadline",
    "check_wasmtime_internals",
    "WasmtimeInternalsError",
]

#: The wasmtime-py release these internals were written against (pyproject.toml pins it).
TESTED_WITH = "50.0.1"


class WasmtimeInternalsError(ImportError):
    """The installed wasmtime-py lacks the private API the fast path and the watchdog call."""


def check_wasmtime_internals() -> None:
    """Raise WasmtimeInternalsError naming what is missing and the installed version."""
    missing = []
    try:
        from wasmtime import _ffi as ffi
        from wasmtime._func import enter_wasm  # noqa: F401 - its presence is what is checked
    except ImportError as exc:
        missing.append(f"{exc.name or 'wasmtime._ffi / wasmtime._func.enter_wasm'}")
        ffi = None
    if ffi is not None:
        missing += [
            f"wasmtime._ffi.{name}"
            for name in (
                "wasmtime_val_t",
                "wasmtime_func_call",
                "WASMTIME_I32",
                "wasmtime_store_epoch_deadline_callback",
                "wasmtime_error_new",
                "wasmtime_context_t",
            )
            if not hasattr(ffi, name)
        ]
    missing += [
        f"wasmtime.{owner.__name__}.{name}"
        for owner, name in (
            (wasmtime.Store, "_context"),
            (wasmtime.Store, "ptr"),
            (wasmtime.WasmtimeError, "_from_ptr"),
        )
        if not hasattr(owner, name)
    ]
    if missing:
        raise WasmtimeInternalsError(
            f"the Wasm runtime needs wasmtime-py internals that wasmtime {_installed()} does not have "
            f"({', '.join(missing)}); it was written against wasmtime {TESTED_WITH}: install that version "
            f"(pip install wasmtime=={TESTED_WITH})"
        )


def direct_call(store: wasmtime.Store, func: wasmtime.Func) -> Callable[[int, int], int]:
    """``run(start, end) -> int`` without wasmtime-py's per-call type checks and conversions.

    Traps and errors surface exactly as through ``Func.__call__``.
    """
    from wasmtime import _ffi as ffi
    from wasmtime._func import enter_wasm

    params = (ffi.wasmtime_val_t * 2)()
    for param in params:
        param.kind = ffi.WASMTIME_I32.value
    results = (ffi.wasmtime_val_t * 1)()
    try:
        handle = ctypes.byref(func._func)
    except AttributeError as exc:
        raise WasmtimeInternalsError(
            f"the Wasm fast path needs wasmtime.Func._func, which wasmtime {_installed()} does not have; "
            f"install wasmtime {TESTED_WITH}"
        ) from exc

    def call(start: int, end: int) -> int:
        params[0].of.i32, params[1].of.i32 = start, end
        with enter_wasm(store) as trap:
            error = ffi.wasmtime_func_call(store._context(), handle, params, 2, results, 1, trap)
            if error:
                raise wasmtime.WasmtimeError._from_ptr(error)
        return results[0].of.i32

    return call


#: ``wasmtime_update_deadline_kind_t``: go on running once the deadline is moved
_UPDATE_DEADLINE_CONTINUE = 0


def epoch_deadline_callback(decide: Callable[[], str | None]) -> Any:
    """A C callback for :func:`on_epoch_deadline`: when a store's epoch deadline is reached, ``decide()``
    returns the message the call stops with (a ``WasmtimeError``), or None to move the deadline one
    tick on and run on.

    Keep the returned object alive as long as any store uses it.  ``decide`` runs on the thread that
    runs the guest, inside the guest call: it must be quick and must not call into wasm.
    """
    from wasmtime import _ffi as ffi

    callback_type = ctypes.CFUNCTYPE(
        ctypes.c_size_t,
        ctypes.POINTER(ffi.wasmtime_context_t),
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_uint64),
        ctypes.POINTER(ctypes.c_uint8),
    )

    def on_deadline(_context: Any, _env: Any, delta: Any, update_kind: Any) -> int:
        try:
            message = decide()
        except BaseException as exc:  # noqa: BLE001 - an exception cannot cross into wasmtime
            message = f"the epoch deadline callback failed: {exc!r}"
        if message is None:
            delta[0], update_kind[0] = 1, _UPDATE_DEADLINE_CONTINUE
            return 0
        error = ffi.wasmtime_error_new(ctypes.create_string_buffer(message.encode()))
        return ctypes.cast(error, ctypes.c_void_p).value or 0  # wasmtime takes the error

    return callback_type(on_deadline)


def on_epoch_deadline(store: wasmtime.Store, callback: Any) -> None:
    """Have ``store`` run ``callback`` (from :func:`epoch_deadline_callback`) at each epoch deadline."""
    from wasmtime import _ffi as ffi

    no_finalizer = ctypes.cast(None, ctypes.CFUNCTYPE(None, ctypes.c_void_p))
    ffi.wasmtime_store_epoch_deadline_callback(store.ptr(), callback, None, no_finalizer)


def _installed() -> str:
    try:
        return version("wasmtime")
    except PackageNotFoundError:  # pragma: no cover - an unusual install
        return "(version unknown)"


check_wasmtime_internals()
