"""A Redpanda Data Transforms guest, checked when the transform is built.

What the broker requires (Redpanda's ``wasmtime_runtime::validate``, and the
SDKs in ``src/transform-sdk``): an exported ``_start`` (a WASI command: the
SDK's ``main`` registers the callback and loops forever, blocking in
``read_batch_header``), an exported ``memory``, and an import of
``redpanda_transform.check_abi_version_1`` or ``_2``.  Imports may come from
``redpanda_transform`` (below), ``wasi_snapshot_preview1`` and the optional
``redpanda_schema_registry``, which this host does not provide.
"""

from __future__ import annotations

import dataclasses

import wasmtime

from smt.errors import ConfigError

__all__ = ["RedpandaGuest", "inspect_redpanda_guest", "TRANSFORM_MODULE", "WASI_MODULE"]

TRANSFORM_MODULE = "redpanda_transform"
SCHEMA_REGISTRY_MODULE = "redpanda_schema_registry"
WASI_MODULE = "wasi_snapshot_preview1"

#: name -> (params, results) of every function of ``redpanda_transform`` (ABI versions 1 and 2).
TRANSFORM_FUNCTIONS = {
    "check_abi_version_1": ((), ()),
    "check_abi_version_2": ((), ()),
    # base offset, record count, leader epoch, attributes, last offset delta, base and max timestamp,
    # producer id, producer epoch, base sequence (pointers) -> the largest record body, or < 0
    "read_batch_header": (("i32",) * 10, ("i32",)),
    # attributes, timestamp, offset (pointers), buffer, its length -> body bytes written, or < 0
    "read_next_record": (("i32",) * 5, ("i32",)),
    "write_record": (("i32",) * 2, ("i32",)),
    "write_record_with_options": (("i32",) * 4, ("i32",)),
}


@dataclasses.dataclass(frozen=True)
class RedpandaGuest:
    """A compiled Redpanda guest and the names it imports from ``redpanda_transform``."""

    module: wasmtime.Module
    label: str
    imports: frozenset[str]


def inspect_redpanda_guest(module: wasmtime.Module, label: str, key_prefix: str) -> RedpandaGuest:
    """Check ``module`` against the Redpanda ABI; raises ConfigError naming ``{key_prefix}module.path``."""
    key = f"{key_prefix}module.path"

    def refuse(reason: str) -> ConfigError:
        return ConfigError.for_key(key, f"Redpanda transform '{label}' {reason}")

    exports = {export.name: export.type for export in module.exports}
    start = exports.get("_start")
    if not isinstance(start, wasmtime.FuncType) or list(start.params) or list(start.results):
        raise refuse(
            "does not export `_start` as a function without parameters or results "
            "(build it as a WASI command: the SDK's main loops over batches)"
        )
    if not isinstance(exports.get("memory"), wasmtime.MemoryType):
        raise refuse("does not export its `memory`")
    imported = set()
    for item in module.imports:
        if item.module == SCHEMA_REGISTRY_MODULE:
            raise refuse(f"imports {item.module}.{item.name}: the schema registry ABI is not supported by this host")
        if item.module == WASI_MODULE:
            continue
        if item.module != TRANSFORM_MODULE:
            raise refuse(f"imports {item.module}.{item.name}, which a Redpanda host does not provide")
        expected = TRANSFORM_FUNCTIONS.get(item.name)
        if expected is None:
            raise refuse(
                f"imports {item.module}.{item.name}, which is not part of Redpanda's transform ABI "
                f"(known: {', '.join(TRANSFORM_FUNCTIONS)})"
            )
        if not isinstance(item.type, wasmtime.FuncType) or _signature(item.type) != expected:
            raise refuse(
                f"imports {item.module}.{item.name} with the signature {_describe(item.type)}; the ABI's is {expected}"
            )
        imported.add(item.name)
    if not imported & {"check_abi_version_1", "check_abi_version_2"}:
        raise refuse(
            "does not import redpanda_transform.check_abi_version_1 or _2: "
            "it was not built with a Redpanda Data Transforms SDK"
        )
    return RedpandaGuest(module, label, frozenset(imported))


def _signature(func: wasmtime.FuncType) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return tuple(str(p) for p in func.params), tuple(str(r) for r in func.results)


def _describe(item_type) -> str:
    return str(_signature(item_type)) if isinstance(item_type, wasmtime.FuncType) else type(item_type).__name__
