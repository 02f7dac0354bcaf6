"""The ``extism:host/env`` functions that are not kernel memory functions, served in Python.

Plug-ins call them rarely (configuration at start-up, a variable per call, a log
line), so a Python call each is cheap enough; the kernel's memory functions, which
PDKs call per 8 bytes of input, stay in Wasm (``kernel.wat``).

As in Extism, each takes ownership of the handles passed to it and frees them.
Variables persist across calls within one instance, up to Extism's default 1 MiB;
``http_request`` is refused: a plug-in gets no network access.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Protocol

import wasmtime

from host_functions.runtime.sandbox import Failure, Settings

__all__ = ["KernelMemory", "host_env_functions", "log_level_for", "MAX_VAR_BYTES"]

#: Extism's default limit on the bytes held by a plug-in's variables.
MAX_VAR_BYTES = 1024 * 1024

#: Extism log levels (``get_log_level``) to Python logging levels.
_LEVELS = {
    "log_trace": logging.DEBUG - 5,
    "log_debug": logging.DEBUG,
    "log_info": logging.INFO,
    "log_warn": logging.WARNING,
    "log_error": logging.ERROR,
}


class KernelMemory(Protocol):
    """What the host functions need of an instance."""

    settings: Settings
    variables: dict[bytes, bytes]

    def read_block(self, handle: int) -> bytes: ...

    def give(self, data: bytes) -> int: ...

    def free(self, handle: int) -> None: ...


def log_level_for(logger: logging.Logger) -> int:
    """Extism's ``get_log_level`` for a logger: plug-ins skip messages below it (0 trace .. 4 error)."""
    level = logger.getEffectiveLevel()
    for extism_level, python_level in enumerate((logging.DEBUG - 5, logging.DEBUG, logging.INFO, logging.WARNING)):
        if level <= python_level:
            return extism_level
    return 4


def host_env_functions(memory: KernelMemory, names: frozenset[str]) -> dict[str, Callable[..., Any]]:
    """The implementations of ``names`` (imported by the plug-in), bound to ``memory``."""
    implementations = {
        "config_get": lambda key: _config_get(memory, key),
        "var_get": lambda key: _var_get(memory, key),
        "var_set": lambda key, value: _var_set(memory, key, value),
        "http_request": lambda request, body: _http_request(memory, request),
        "http_status_code": lambda: 0,
        "http_headers": lambda: 0,
        **{name: _logger(memory, level) for name, level in _LEVELS.items()},
    }
    return {name: implementations[name] for name in names}


def _config_get(memory: KernelMemory, key: int) -> int:
    name = memory.read_block(key)
    memory.free(key)
    value = memory.settings.guest_config.get(name.decode("utf-8", "replace"))
    return 0 if value is None else memory.give(value.encode("utf-8"))


def _var_get(memory: KernelMemory, key: int) -> int:
    name = memory.read_block(key)
    memory.free(key)
    value = memory.variables.get(name)
    return 0 if value is None else memory.give(value)


def _var_set(memory: KernelMemory, key: int, value: int) -> None:
    name = memory.read_block(key)
    if value == 0:
        memory.variables.pop(name, None)
        memory.free(key)
        return
    data = memory.read_block(value)
    held = sum(len(k) + len(v) for k, v in memory.variables.items() if k != name)
    if held + len(name) + len(data) > MAX_VAR_BYTES:
        raise Failure(f"var_set: the plug-in's variables would exceed {MAX_VAR_BYTES} bytes")
    memory.variables[name] = data
    memory.free(value)
    memory.free(key)


def _http_request(memory: KernelMemory, request: int) -> int:
    document = memory.read_block(request).decode("utf-8", "replace")
    raise Failure(
        f"http_request is not allowed: Extism plug-ins get no network access here (request: {document[:200]})"
    )


def _logger(memory: KernelMemory, level: int) -> Callable[[int], None]:
    logger = memory.settings.logger

    def log(handle: int) -> None:
        text = memory.read_block(handle).decode("utf-8", "replace")
        memory.free(handle)
        logger.log(level, "%s", text)

    return log


def func_type(params: tuple[str, ...], results: tuple[str, ...]) -> wasmtime.FuncType:
    """The Wasm type of a host function from its ``("i64",)``-style signature."""
    valtypes = {"i32": wasmtime.ValType.i32(), "i64": wasmtime.ValType.i64()}
    return wasmtime.FuncType([valtypes[p] for p in params], [valtypes[r] for r in results])
