"""Which ABI a guest module was built for, and what serves each one.

One ``wasm`` transform runs guests written for four systems.  The module
itself says which: what it imports and exports.

| ABI | recognised by |
|---|---|
| ``kafka-connect`` | host functions imported from ``env`` (the Kafka Connect Wasm transformer's ABI; the default) |
| ``redpanda`` | imports from ``redpanda_transform`` (Redpanda Data Transforms) |
| ``extism`` | imports from ``extism:host/env`` (Extism plug-ins) |
| ``proxy-wasm`` | an export named ``proxy_abi_version_*`` (proxy-wasm network filters) |

``transforms.X.abi`` overrides the detection.  Every ABI other than
``kafka-connect`` is served by a :class:`GuestAbi` implementation, looked up
lazily in :data:`_IMPLEMENTATIONS` so that a pipeline loads only the one it
uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Protocol

import wasmtime

from smt.batch import RecordBatch
from smt.config import ConfigDef
from smt.errors import ConfigError
from smt.transform import ErrorSink

if TYPE_CHECKING:  # pragma: no cover
    from host_functions.runtime.sandbox import Settings

__all__ = [
    "ABI_NAMES",
    "AUTO",
    "EXTISM",
    "GuestAbi",
    "GuestRunner",
    "KAFKA_CONNECT",
    "PROXY_WASM",
    "REDPANDA",
    "detect_abi",
    "guest_abi",
]

AUTO = "auto"
KAFKA_CONNECT = "kafka-connect"
REDPANDA = "redpanda"
EXTISM = "extism"
PROXY_WASM = "proxy-wasm"
ABI_NAMES = (KAFKA_CONNECT, REDPANDA, EXTISM, PROXY_WASM)

_REDPANDA_MODULE = "redpanda_transform"
_EXTISM_MODULE = "extism:host/env"
_PROXY_WASM_EXPORT_PREFIX = "proxy_abi_version_"


def detect_abi(module: wasmtime.Module) -> str:
    """The ABI ``module`` was built for, from its imports and exports."""
    imported = {imp.module for imp in module.imports}
    if _REDPANDA_MODULE in imported:
        return REDPANDA
    if _EXTISM_MODULE in imported:
        return EXTISM
    if any(export.name.startswith(_PROXY_WASM_EXPORT_PREFIX) for export in module.exports):
        return PROXY_WASM
    return KAFKA_CONNECT


class GuestRunner(Protocol):
    """Runs one guest over record batches on an executor (built there from pickled state)."""

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        """Transform every row; output rows keep their parent's origin and order.

        A row that fails is reported with ``errors.fail(row, exc)`` (a
        :class:`host_functions.WasmGuestError` naming the transform and cause)
        and left out of the output.
        """
        ...  # pragma: no cover - interface


class GuestAbi(Protocol):
    """One ABI other than kafka-connect: its keys, its checks, its runner."""

    #: One of :data:`ABI_NAMES`.
    name: str
    #: The ``transforms.X.*`` keys only this ABI reads (merged into the wasm
    #: transform's declaration, so they are documented and validated).
    config_def: ConfigDef

    def build(
        self,
        module: wasmtime.Module,
        settings: "Settings",
        config: dict[str, Any],
        key_prefix: str,
        check: bool,
    ) -> GuestRunner:
        """Check ``module`` against this ABI and return its runner.

        ``config`` is the wasm transform's parsed configuration (this ABI's
        keys included), ``key_prefix`` its key prefix (``transforms.X.``) for
        naming keys in errors.  With ``check``, instantiate once (under the
        time limit) so a module that cannot run fails now.  Raises
        :class:`smt.errors.ConfigError` naming ``{key_prefix}module.path`` or
        the offending key.
        """
        ...  # pragma: no cover - interface

    def input_fields(self, config: dict[str, Any]) -> frozenset[str] | None:
        """The Kafka row fields a guest of this ABI can read; None for all."""
        ...  # pragma: no cover - interface


#: ABI name -> "module:attribute" of its :class:`GuestAbi` (imported on first use).
_IMPLEMENTATIONS: dict[str, str] = {
    REDPANDA: "host_functions.redpanda:RedpandaAbi",
    EXTISM: "host_functions.extism:ExtismAbi",
    PROXY_WASM: "host_functions.proxy_wasm:ProxyWasmAbi",
}


def guest_abi(name: str, key_prefix: str) -> GuestAbi:
    """The implementation of ABI ``name``; raises ConfigError when it is not available."""
    target = _IMPLEMENTATIONS.get(name)
    if target is None:
        raise ConfigError.for_key(
            f"{key_prefix}abi", f"guests built for the {name} ABI are not supported by this version", name
        )
    module_name, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module_name), attribute)()


def abi_config_defs() -> ConfigDef:
    """The keys of every registered ABI, for the wasm transform's declaration."""
    merged = ConfigDef()
    for target in _IMPLEMENTATIONS.values():
        module_name, _, attribute = target.partition(":")
        merged = merged.merge(getattr(importlib.import_module(module_name), attribute).config_def)
    return merged
