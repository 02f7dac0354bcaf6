"""The Kafka Connect Wasm transformer's ABI as a :class:`host_functions.guest_abi.GuestAbi`: the default.

A guest imports host functions from ``env`` (``get_value``, ``set_key``, ...; ``host_functions/ABI.md``)
and exports the function run per record (``function.name``).  It runs on the fast path (a batch per
Wasm call through the adapter) unless ``path=reference`` or a Python host function needs the reference
path.  A module no other ABI claims runs here, so this ABI detects nothing itself.
"""

from __future__ import annotations

from typing import Any

import wasmtime

from host_functions.guest_abi import KAFKA_CONNECT, GuestBuild
from host_functions.kafka_connect.abi import ABI_VERSION, ABI_VERSION_EXPORT
from host_functions.kafka_connect.fast_path import FastPath
from host_functions.kafka_connect.guest import GuestModule, inspect_guest
from host_functions.kafka_connect.reference import ReferenceInstance, ReferencePath
from host_functions.runtime.engine import runtime
from host_functions.runtime.sandbox import StartFailure
from smt.config import ConfigDef
from smt.errors import ConfigError

__all__ = ["KafkaConnectAbi"]

#: Fields a kafka-connect guest may change, each through its setter (or set_record).
_CHANGEABLE_FIELDS = ("key", "value", "topic", "headers", "timestamp")

#: Host function → the Kafka row fields it reads.
_FIELDS_READ_BY = {
    "get_key": frozenset({"key"}),
    "get_value": frozenset({"value"}),
    "get_topic": frozenset({"topic"}),
    "get_header": frozenset({"headers"}),
    "get_timestamp": frozenset({"timestamp"}),
    "get_partition": frozenset({"partition"}),
    "get_offset": frozenset({"offset"}),
    "get_record": frozenset({"topic", "key", "value", "headers"}),
}


class KafkaConnectAbi:
    """Guests of the Kafka Connect Wasm transformer's ABI (host functions imported from ``env``)."""

    name = KAFKA_CONNECT
    default = True
    #: Its keys (function.name, path) are the wasm transform's own: every guest of this ABI reads them.
    config_def = ConfigDef()

    def __init__(self) -> None:
        #: The inspected module, once built.
        self.guest: GuestModule | None = None

    @staticmethod
    def detect(module: wasmtime.Module) -> bool:
        """Never claims a module: this is the default ABI, for modules no other ABI claims."""
        return False

    def build(self, build: GuestBuild) -> FastPath | ReferencePath:
        config, prefix = build.config, build.key_prefix
        if not config["function.name"]:
            raise ConfigError.for_key(f"{prefix}function.name", "is required and has no default")
        functions = dict(build.host_functions)
        guest = inspect_guest(
            build.module,
            label=build.settings.module_label,
            function_name=config["function.name"],
            plugin_functions=functions,
            wasi=config["wasi"],
            key_prefix=prefix,
        )
        rt = runtime()
        if build.check:
            _check_instance(rt, guest, build, functions)
        self.guest = guest
        if config["path"] == "fast" and guest.fast_path_possible:
            return FastPath(rt, guest, build.settings, build.converters, build.module_digest)
        return ReferencePath(rt, guest, build.settings, build.converters, functions)

    def input_fields(self, config: dict[str, Any]) -> frozenset[str] | None:
        """The record fields the guest can read, from the host functions it imports."""
        if self.guest.plugin_imports:
            return None  # a Python host function may read anything
        fields: set[str] = set()
        for name in self.guest.imports:
            fields |= _FIELDS_READ_BY.get(name, frozenset())
        return frozenset(fields)

    def changed_fields(self, config: dict[str, Any]) -> frozenset[str] | None:
        """The record fields the guest can change, from the host functions it imports."""
        if self.guest.plugin_imports:
            return None  # a Python host function may change anything
        shape = self.guest.adapter_shape()
        return frozenset(field for field in _CHANGEABLE_FIELDS if shape.modifies(field))


def _check_instance(rt, guest: GuestModule, build: GuestBuild, functions) -> None:
    """Instantiate once now, so linking problems and ABI versions fail at build time."""
    key = f"{build.key_prefix}module.path"
    settings = build.settings
    try:
        # a start function that never returns is cut off like a record would be
        instance = rt.start(settings, lambda: ReferenceInstance(rt.engine, guest, settings, functions))
    except StartFailure as exc:
        raise ConfigError.for_key(
            key, f"WebAssembly module '{guest.label}' cannot be instantiated: {exc.cause}"
        ) from exc
    version = _abi_version(instance)
    if version is not None and version > ABI_VERSION:
        raise ConfigError.for_key(
            key, f"WebAssembly module '{guest.label}' needs ABI version {version}; this host implements {ABI_VERSION}"
        )


def _abi_version(instance: ReferenceInstance) -> int | None:
    try:
        item = instance.exports[ABI_VERSION_EXPORT]
    except (KeyError, AttributeError):
        return None
    if isinstance(item, wasmtime.Global):
        return int(item.value(instance.store))
    if isinstance(item, wasmtime.Func):
        return int(item(instance.store))
    return None
