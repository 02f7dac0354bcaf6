"""Which ABI a guest module was built for, and what serves each one.

One ``wasm`` transform runs guests written for four systems.  The module
itself says which: what it imports and exports.

| ABI | recognised by |
|---|---|
| ``kafka-connect`` | host functions imported from ``env`` (the Kafka Connect Wasm transformer's ABI; the default) |
| ``redpanda`` | imports from ``redpanda_transform`` (Redpanda Data Transforms) |
| ``extism`` | imports from ``extism:host/env`` (Extism plug-ins) |
| ``proxy-wasm`` | an export named ``proxy_abi_version_*`` (proxy-wasm network filters) |

``transforms.X.abi`` overrides the detection.  Every ABI, kafka-connect's
included, is a :class:`GuestAbi` registered through the ``smt_guest_abis``
plugin hook, as the built-ins are (``host_functions._plugin``): a plugin can
add a fifth.  Each says whether a module is its own (``detect``); a module no
ABI claims runs on the default ABI, kafka-connect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence

import wasmtime

from smt.batch import RecordBatch
from smt.config import ConfigDef
from smt.errors import ConfigError
from smt.transform import ErrorSink

if TYPE_CHECKING:  # pragma: no cover
    from host_functions.runtime.record_bytes import Converters
    from host_functions.runtime.sandbox import Settings

__all__ = [
    "AUTO",
    "EXTISM",
    "GuestAbi",
    "GuestBuild",
    "GuestRunner",
    "KAFKA_CONNECT",
    "PROXY_WASM",
    "REDPANDA",
    "choose_abi",
    "detect_abi",
    "registered_abis",
]

AUTO = "auto"
KAFKA_CONNECT = "kafka-connect"
REDPANDA = "redpanda"
EXTISM = "extism"
PROXY_WASM = "proxy-wasm"


@dataclass(frozen=True)
class GuestBuild:
    """What an ABI is given to build the runner of one configured guest."""

    module: wasmtime.Module
    #: sha256 of the module's bytes (a cache key for what is derived from the module).
    module_digest: str
    settings: "Settings"
    #: The wasm transform's parsed keys, this ABI's own included.
    config: dict[str, Any]
    #: The transform's key, value and header converters (between the record and the guest's bytes).
    converters: "Converters"
    #: The transform's key prefix (``transforms.X.``), for naming keys in errors.
    key_prefix: str
    #: Instantiate once (under the time limit) so a module that cannot run fails now; False for a copy
    #: unpickled on an executor, which was checked where it was configured.
    check: bool
    #: Host functions written in Python that plugins offer (name -> definition).
    host_functions: Mapping[str, Any]


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
    """One guest ABI: how its modules are recognised, its keys, its checks, its runner.

    Registered as a class through the ``smt_guest_abis`` hook; the wasm transform makes one instance
    per configured guest, so :meth:`input_fields` and :meth:`changed_fields` may read what
    :meth:`build` learnt of the module.
    """

    #: The ABI's name, the value of ``transforms.X.abi`` that chooses it.
    name: str
    #: The ``transforms.X.*`` keys only this ABI reads (merged into the wasm
    #: transform's declaration, so they are documented and validated).
    config_def: ConfigDef
    #: True for the one ABI that runs modules no other claims (kafka-connect).
    default: bool

    @staticmethod
    def detect(module: wasmtime.Module) -> bool:
        """Whether ``module`` was built for this ABI, from its imports and exports."""
        ...  # pragma: no cover - interface

    def build(self, guest: GuestBuild) -> GuestRunner:
        """Check ``guest.module`` against this ABI and return its runner.

        Raises :class:`smt.errors.ConfigError` naming ``{key_prefix}module.path`` or the offending key.
        """
        ...  # pragma: no cover - interface

    def input_fields(self, config: dict[str, Any]) -> frozenset[str] | None:
        """The Kafka row fields the built guest can read; None for all."""
        ...  # pragma: no cover - interface

    def changed_fields(self, config: dict[str, Any]) -> frozenset[str] | None:
        """The Kafka row fields the built guest can change; None for any."""
        ...  # pragma: no cover - interface


def registered_abis(plugins: Any = None) -> list[type[GuestAbi]]:
    """The guest ABIs registered through the ``smt_guest_abis`` hook of ``plugins`` (default: the
    process's registry, entry points and built-ins)."""
    if plugins is None:
        from smt.plugins import default_plugins  # the registry loads this package's plugin module

        plugins = default_plugins()
    return [registration.cls for registration in plugins.registrations("guest_abi")]


def detect_abi(module: wasmtime.Module, abis: Sequence[type[GuestAbi]], key: str) -> type[GuestAbi]:
    """The ABI of ``abis`` that claims ``module``, else the default one.

    Raises ConfigError naming ``key`` (the module's) when two ABIs claim the module.
    """
    claimed = [abi for abi in abis if not abi.default and abi.detect(module)]
    if len(claimed) > 1:
        names = " and ".join(sorted(abi.name for abi in claimed))
        raise ConfigError.for_key(key, f"the module matches the {names} ABIs: set abi to the one it was built for")
    if claimed:
        return claimed[0]
    return next(abi for abi in abis if abi.default)


def choose_abi(name: str, module: wasmtime.Module, abis: Sequence[type[GuestAbi]], key_prefix: str) -> type[GuestAbi]:
    """The ABI ``transforms.X.abi`` names (or, for ``auto``, the one :func:`detect_abi` finds).

    Raises ConfigError naming ``{key_prefix}abi`` with the registered names when none has that name.
    """
    if name == AUTO:
        return detect_abi(module, abis, f"{key_prefix}module.path")
    for abi in abis:
        if abi.name == name:
            return abi
    known = ", ".join([AUTO, *(abi.name for abi in abis)])
    raise ConfigError.for_key(f"{key_prefix}abi", f"no guest ABI has this name (known: {known})", name)


def abi_config_defs(abis: Sequence[type[GuestAbi]]) -> ConfigDef:
    """The keys of ``abis``, for the wasm transform's declaration."""
    merged = ConfigDef()
    for abi in abis:
        merged = merged.merge(abi.config_def)
    return merged
