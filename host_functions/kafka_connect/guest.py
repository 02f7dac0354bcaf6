"""A guest module checked against the ABI when the transform is built.

Everything that can be known from the module alone is checked here, so a bad
module fails at build time naming the module and the missing piece: not Wasm,
no export named by ``function.name`` (or one with the wrong signature), no
``memory`` or ``alloc``, an import the host does not provide.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping

import wasmtime

from host_functions.kafka_connect.abi import ABI_MODULE, BY_NAME
from host_functions.kafka_connect.host_function import HostFunction
from host_functions.kafka_connect.layout import AdapterShape
from host_functions.runtime.sandbox import WASI_MODULES
from smt.errors import ConfigError

__all__ = ["GuestModule", "inspect_guest"]

_TYPE_NAMES = {"i32": wasmtime.ValType.i32(), "i64": wasmtime.ValType.i64()}


@dataclasses.dataclass(frozen=True)
class GuestModule:
    """A compiled guest and what it uses."""

    module: wasmtime.Module
    label: str
    function_name: str
    imports: frozenset[str]
    plugin_imports: frozenset[str]
    entry_returns_i64: bool
    has_dealloc: bool
    uses_wasi: bool

    @property
    def fast_path_possible(self) -> bool:
        """False when the guest imports a plugin's Python host function."""
        return not self.plugin_imports

    def adapter_shape(self, staged: frozenset[str] = frozenset()) -> AdapterShape:
        """The adapter for this guest with the ``staged`` input columns (the others are staged on demand)."""
        uses = self.imports.__contains__
        sets_record = uses("set_record")
        return AdapterShape(
            entry_returns_i64=self.entry_returns_i64,
            has_dealloc=self.has_dealloc,
            modifies_key=uses("set_key") or sets_record,
            modifies_value=uses("set_value") or sets_record,
            modifies_topic=uses("set_topic") or sets_record,
            modifies_headers=uses("set_header") or sets_record,
            modifies_timestamp=uses("set_timestamp"),
            get_record=uses("get_record"),
            set_record=sets_record,
            staged=staged,
            emits=uses("emit_record"),
        )


def _types(vals) -> tuple[str, ...]:
    return tuple(str(v) for v in vals)


def inspect_guest(
    module: wasmtime.Module,
    *,
    label: str,
    function_name: str,
    plugin_functions: Mapping[str, HostFunction],
    wasi: bool,
    key_prefix: str,
) -> GuestModule:
    """Check ``module`` against the ABI; raise :class:`ConfigError` naming what is wrong."""
    problems = []
    exports = {e.name: e.type for e in module.exports}

    def missing(what: str) -> None:
        problems.append(what)

    memory = exports.get("memory")
    if not isinstance(memory, wasmtime.MemoryType):
        missing("it does not export a memory named 'memory'")
    alloc = exports.get("alloc")
    if not isinstance(alloc, wasmtime.FuncType) or (_types(alloc.params), _types(alloc.results)) != (
        ("i32",),
        ("i32",),
    ):
        missing("it does not export 'alloc(i32) -> i32'")
    dealloc = exports.get("dealloc")
    has_dealloc = isinstance(dealloc, wasmtime.FuncType)
    if has_dealloc and (_types(dealloc.params), _types(dealloc.results)) != (("i32", "i32"), ()):
        missing("its 'dealloc' export is not 'dealloc(i32, i32)'")
    entry = exports.get(function_name)
    entry_returns_i64 = False
    if not isinstance(entry, wasmtime.FuncType):
        missing(f"it does not export the function '{function_name}' named by function.name")
    elif entry.params or _types(entry.results) not in ((), ("i64",)):
        missing(
            f"its function '{function_name}' must take no arguments and return nothing or i64, "
            f"not ({', '.join(_types(entry.params))}) -> ({', '.join(_types(entry.results))})"
        )
    else:
        entry_returns_i64 = bool(entry.results)

    imports, plugin_imports, uses_wasi = set(), set(), False
    for imp in module.imports:
        where = f"'{imp.module}.{imp.name}'"
        if imp.module in WASI_MODULES:
            uses_wasi = True
            if not wasi:
                missing(f"it imports WASI function {where} but WASI is off (set wasi=true to allow it)")
            continue
        if imp.module != ABI_MODULE or not isinstance(imp.type, wasmtime.FuncType):
            missing(f"it imports {where}, which the host does not provide")
            continue
        expected = BY_NAME.get(imp.name) or plugin_functions.get(imp.name)
        if expected is None:
            missing(f"it imports {where}, which the host does not provide")
            continue
        got = (_types(imp.type.params), _types(imp.type.results))
        if got != (tuple(expected.params), tuple(expected.results)):
            missing(
                f"it imports {where} as ({', '.join(got[0])}) -> ({', '.join(got[1])}); "
                f"the host provides ({', '.join(expected.params)}) -> ({', '.join(expected.results)})"
            )
            continue
        (imports if imp.name in BY_NAME else plugin_imports).add(imp.name)

    if problems:
        raise ConfigError.for_key(
            f"{key_prefix}module.path",
            f"WebAssembly module '{label}' cannot be used: " + "; ".join(problems),
            label,
        )
    return GuestModule(
        module=module,
        label=label,
        function_name=function_name,
        imports=frozenset(imports),
        plugin_imports=frozenset(plugin_imports),
        entry_returns_i64=entry_returns_i64,
        has_dealloc=has_dealloc,
        uses_wasi=uses_wasi,
    )
