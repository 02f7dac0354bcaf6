"""An Extism plug-in checked against what this host provides, when the transform is configured.

Everything knowable from the module alone fails here, naming the module and the
missing piece: no export named by ``function.name`` (or one of another type), an
import this host does not provide (or one with another signature), WASI while
``wasi=false``.  Which record shape the plug-in uses follows from its imports:
host functions from ``extism:host/user`` (the Kafka Connect Extism transformer's)
mean the host-function shape; none mean record-in, records-out.
"""

from __future__ import annotations

import dataclasses

import wasmtime

from host_functions.runtime.sandbox import WASI_MODULES
from smt.errors import ConfigError

__all__ = ["PluginModule", "inspect_plugin", "ENV_MODULE", "USER_MODULE", "RECORD_SHAPE", "HOST_FUNCTION_SHAPE"]

ENV_MODULE = "extism:host/env"
USER_MODULE = "extism:host/user"
RECORD_SHAPE = "record"
HOST_FUNCTION_SHAPE = "host-functions"

I32, I64 = "i32", "i64"

#: ``extism:host/env`` functions served by the kernel (in Wasm): name -> (params, results).
KERNEL_FUNCTIONS = {
    "alloc": ((I64,), (I64,)),
    "free": ((I64,), ()),
    "length": ((I64,), (I64,)),
    "length_unsafe": ((I64,), (I64,)),
    "load_u8": ((I64,), (I32,)),
    "load_u64": ((I64,), (I64,)),
    "store_u8": ((I64, I32), ()),
    "store_u64": ((I64, I64), ()),
    "input_load_u8": ((I64,), (I32,)),
    "input_load_u64": ((I64,), (I64,)),
    "input_set": ((I64, I64), ()),
    "output_set": ((I64, I64), ()),
    "input_length": ((), (I64,)),
    "input_offset": ((), (I64,)),
    "output_length": ((), (I64,)),
    "output_offset": ((), (I64,)),
    "error_set": ((I64,), ()),
    "error_get": ((), (I64,)),
    "memory_bytes": ((), (I64,)),
    "reset": ((), ()),
    "get_log_level": ((), (I32,)),
}
#: ``extism:host/env`` functions served in Python (see :mod:`host_functions.extism._host_env`).
HOST_ENV_FUNCTIONS = {
    "config_get": ((I64,), (I64,)),
    "var_get": ((I64,), (I64,)),
    "var_set": ((I64, I64), ()),
    "http_request": ((I64, I64), (I64,)),
    "http_status_code": ((), (I32,)),
    "http_headers": ((), (I64,)),
    "log_info": ((I64,), ()),
    "log_debug": ((I64,), ()),
    "log_warn": ((I64,), ()),
    "log_error": ((I64,), ()),
    "log_trace": ((I64,), ()),
}
#: The Kafka Connect Extism transformer's host functions; snake_case names are its later spelling.
USER_FUNCTIONS = {
    "getKey": ((), (I64,)),
    "setKey": ((I64,), ()),
    "getValue": ((), (I64,)),
    "setValue": ((I64,), ()),
    "getHeader": ((I64,), (I64,)),
    "setHeader": ((I64,), ()),
    "getTopic": ((), (I64,)),
    "setTopic": ((I64,), ()),
    "getRecord": ((), (I64,)),
    "setRecord": ((I64,), ()),
}
SNAKE_CASE = {name: "".join("_" + c.lower() if c.isupper() else c for c in name) for name in USER_FUNCTIONS}
_USER_BY_IMPORT = {**{name: name for name in USER_FUNCTIONS}, **{snake: name for name, snake in SNAKE_CASE.items()}}


@dataclasses.dataclass(frozen=True)
class PluginModule:
    """A compiled plug-in and what it uses."""

    module: wasmtime.Module
    label: str
    function_name: str
    shape: str
    #: the entry export returns the Extism return code (an i32); otherwise it returns nothing
    returns_rc: bool
    #: ``extism:host/env`` functions served in Python that the plug-in imports
    env_imports: frozenset[str]
    #: import name -> canonical name (camelCase) of each ``extism:host/user`` function imported
    user_imports: tuple[tuple[str, str], ...]
    uses_wasi: bool
    #: the reactor initialiser Extism runs after instantiation (``__wasm_call_ctors`` or ``_initialize``)
    initializer: str | None


def _types(vals) -> tuple[str, ...]:
    return tuple(str(v) for v in vals)


def inspect_plugin(
    module: wasmtime.Module, *, label: str, function_name: str, wasi: bool, key_prefix: str
) -> PluginModule:
    """Check ``module`` against this host; raise :class:`ConfigError` naming everything wrong."""
    problems: list[str] = []
    exports = {e.name: e.type for e in module.exports}
    entry = exports.get(function_name)
    returns_rc = False
    if not isinstance(entry, wasmtime.FuncType):
        problems.append(f"it does not export the function '{function_name}' named by function.name")
    elif entry.params or _types(entry.results) not in ((), (I32,)):
        problems.append(
            f"its function '{function_name}' must take no arguments and return an i32 or nothing, "
            f"not ({', '.join(_types(entry.params))}) -> ({', '.join(_types(entry.results))})"
        )
    else:
        returns_rc = bool(entry.results)
    env_imports, user_imports, uses_wasi = set(), {}, False
    for imp in module.imports:
        where = f"'{imp.module}.{imp.name}'"
        if imp.module in WASI_MODULES:
            uses_wasi = True
            if not wasi:
                problems.append(f"it imports WASI function {where} but WASI is off (set wasi=true to allow it)")
            continue
        expected = _expected(imp.module, imp.name)
        if expected is None or not isinstance(imp.type, wasmtime.FuncType):
            problems.append(f"it imports {where}, which the host does not provide")
            continue
        got = (_types(imp.type.params), _types(imp.type.results))
        if got != expected:
            problems.append(
                f"it imports {where} as ({', '.join(got[0])}) -> ({', '.join(got[1])}); "
                f"the host provides ({', '.join(expected[0])}) -> ({', '.join(expected[1])})"
            )
        elif imp.module == USER_MODULE:
            user_imports[imp.name] = _USER_BY_IMPORT[imp.name]
        elif imp.name in HOST_ENV_FUNCTIONS:
            env_imports.add(imp.name)
    if problems:
        raise ConfigError.for_key(
            f"{key_prefix}module.path", f"Extism plug-in '{label}' cannot be used: " + "; ".join(problems), label
        )
    return PluginModule(
        module=module,
        label=label,
        function_name=function_name,
        shape=HOST_FUNCTION_SHAPE if user_imports else RECORD_SHAPE,
        returns_rc=returns_rc,
        env_imports=frozenset(env_imports),
        user_imports=tuple(sorted(user_imports.items())),
        uses_wasi=uses_wasi,
        initializer=_initializer(exports),
    )


def _expected(module: str, name: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    if module == ENV_MODULE:
        return KERNEL_FUNCTIONS.get(name) or HOST_ENV_FUNCTIONS.get(name)
    if module == USER_MODULE and name in _USER_BY_IMPORT:
        return USER_FUNCTIONS[_USER_BY_IMPORT[name]]
    return None


def _initializer(exports: dict) -> str | None:
    # Extism's own order: a C-style constructor list first, else a WASI reactor's initialiser.
    for name in ("__wasm_call_ctors", "_initialize"):
        kind = exports.get(name)
        if isinstance(kind, wasmtime.FuncType) and not kind.params and not kind.results:
            return name
    return None
