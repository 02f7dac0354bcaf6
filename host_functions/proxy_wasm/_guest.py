"""A proxy-wasm network filter, checked when the transform is built.

What a host needs of a filter (proxy-wasm ABI v0.2.0 and v0.2.1): the marker
export ``proxy_abi_version_0_2_0`` or ``_0_2_1``, its ``memory``, an
allocator (``proxy_on_memory_allocate``, or ``malloc`` in older modules: the
host hands the filter its data in memory the filter owns),
``proxy_on_context_create`` and, for a network filter,
``proxy_on_downstream_data``.  Imports come from ``env`` (every host function
is named ``proxy_*`` and returns a status) and ``wasi_snapshot_preview1``.
"""

from __future__ import annotations

import dataclasses

import wasmtime

from smt.errors import ConfigError

__all__ = ["FilterGuest", "inspect_filter", "HOST_MODULE", "WASI_MODULE"]

HOST_MODULE = "env"
WASI_MODULE = "wasi_snapshot_preview1"
SUPPORTED_VERSIONS = ("proxy_abi_version_0_2_0", "proxy_abi_version_0_2_1")
_VERSION_PREFIX = "proxy_abi_version_"
_REQUIRED_EXPORTS = ("proxy_on_context_create", "proxy_on_downstream_data")


@dataclasses.dataclass(frozen=True)
class FilterGuest:
    """A compiled filter: its module, label, ABI version, exports and ``env`` imports."""

    module: wasmtime.Module
    label: str
    abi_version: str
    exports: frozenset[str]
    host_imports: tuple[tuple[str, wasmtime.FuncType], ...]

    @property
    def allocator(self) -> str:
        return "proxy_on_memory_allocate" if "proxy_on_memory_allocate" in self.exports else "malloc"


def inspect_filter(module: wasmtime.Module, label: str, key_prefix: str) -> FilterGuest:
    """Check ``module`` against the proxy-wasm ABI; raises ConfigError naming ``{key_prefix}module.path``."""

    def refuse(reason: str) -> ConfigError:
        return ConfigError.for_key(f"{key_prefix}module.path", f"proxy-wasm filter '{label}' {reason}")

    exports = {export.name: export.type for export in module.exports}
    versions = sorted(name for name in exports if name.startswith(_VERSION_PREFIX))
    supported = [name for name in versions if name in SUPPORTED_VERSIONS]
    if not supported:
        found = versions[0][len(_VERSION_PREFIX) :].replace("_", ".") if versions else "none"
        raise refuse(f"was built for proxy-wasm ABI {found}; this host implements 0.2.0 and 0.2.1")
    if not isinstance(exports.get("memory"), wasmtime.MemoryType):
        raise refuse("does not export its `memory`")
    for name in _REQUIRED_EXPORTS:
        if not isinstance(exports.get(name), wasmtime.FuncType):
            raise refuse(f"does not export `{name}`: it is not a network (TCP) filter")
    if not any(isinstance(exports.get(name), wasmtime.FuncType) for name in ("proxy_on_memory_allocate", "malloc")):
        raise refuse("exports no allocator (`proxy_on_memory_allocate` or `malloc`)")
    host_imports = []
    for item in module.imports:
        if item.module == WASI_MODULE:
            continue
        if item.module != HOST_MODULE or not item.name.startswith("proxy_"):
            raise refuse(f"imports {item.module}.{item.name}, which a proxy-wasm host does not provide")
        if not isinstance(item.type, wasmtime.FuncType) or [str(r) for r in item.type.results] != ["i32"]:
            raise refuse(
                f"imports {item.module}.{item.name} with a signature no proxy-wasm host function has "
                "(they all return an i32 status)"
            )
        host_imports.append((item.name, item.type))
    return FilterGuest(module, label, supported[-1], frozenset(exports), tuple(host_imports))
