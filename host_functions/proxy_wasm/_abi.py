"""The proxy-wasm ABI (Kafka network filters) as a :class:`host_functions.guest_abi.GuestAbi`."""

from __future__ import annotations

import dataclasses
from typing import Any

import wasmtime

from host_functions.guest_abi import PROXY_WASM, GuestBuild
from host_functions.proxy_wasm._guest import inspect_filter
from host_functions.proxy_wasm._instance import StartFailed
from host_functions.proxy_wasm._runner import ProxyWasmRunner
from host_functions.runtime.engine import runtime
from host_functions.runtime.single_entry import refuse_entry_choice, start_once
from smt.config import ConfigDef

__all__ = ["ProxyWasmAbi"]

#: The prefix of the export naming the proxy-wasm ABI version a filter speaks.
_VERSION_EXPORT_PREFIX = "proxy_abi_version_"


class ProxyWasmAbi:
    """Network filters built with the proxy-wasm SDKs (Rust, Go, C++, AssemblyScript), fed Kafka Produce requests."""

    name = PROXY_WASM
    default = False
    #: No keys of its own: the plugin configuration is ``transforms.X.config.*``, as a JSON object.
    config_def = ConfigDef()

    @staticmethod
    def detect(module: wasmtime.Module) -> bool:
        """A proxy-wasm filter exports the ABI version it speaks, ``proxy_abi_version_*``."""
        return any(export.name.startswith(_VERSION_EXPORT_PREFIX) for export in module.exports)

    def build(self, build: GuestBuild) -> ProxyWasmRunner:
        settings, config, key_prefix = build.settings, build.config, build.key_prefix
        guest = inspect_filter(build.module, settings.module_label, key_prefix)
        refuse_entry_choice(
            config,
            key_prefix,
            "proxy-wasm filters",
            "the host calls proxy_on_downstream_data",
            "a call per Produce request",
        )
        runner = ProxyWasmRunner(
            runtime(),
            guest,
            dataclasses.replace(settings, wasi=True, function_name="proxy_on_downstream_data"),
            build.converters,
            plugin_configuration=dict(settings.guest_config),
        )
        if build.check:
            start_once(
                runner.instance,
                runner.close,
                StartFailed,
                key_prefix,
                lambda exc: f"proxy-wasm filter '{guest.label}' cannot start: {exc.cause}",
            )
        return runner

    def input_fields(self, config: dict[str, Any]) -> frozenset[str]:
        """Key, value, headers and timestamp travel in the request; topic and partition address it."""
        return frozenset({"key", "value", "headers", "timestamp", "topic", "partition"})

    def changed_fields(self, config: dict[str, Any]) -> None:
        """A filter rewrites whole Produce requests."""
        return None
