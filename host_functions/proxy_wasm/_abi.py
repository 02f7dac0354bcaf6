"""The proxy-wasm ABI (Kafka network filters) as a :class:`host_functions.guest_abi.GuestAbi`."""

from __future__ import annotations

import dataclasses
from typing import Any

import wasmtime

from host_functions.guest_abi import PROXY_WASM
from host_functions.proxy_wasm._guest import inspect_filter
from host_functions.proxy_wasm._instance import StartFailed
from host_functions.proxy_wasm._runner import ProxyWasmRunner
from host_functions.runtime.engine import runtime
from host_functions.runtime.sandbox import Settings
from host_functions.runtime.single_entry import refuse_entry_choice, start_once
from smt.config import ConfigDef

__all__ = ["ProxyWasmAbi"]


class ProxyWasmAbi:
    """Network filters built with the proxy-wasm SDKs (Rust, Go, C++, AssemblyScript), fed Kafka Produce requests."""

    name = PROXY_WASM
    #: No keys of its own: the plugin configuration is ``transforms.X.config.*``, as a JSON object.
    config_def = ConfigDef()

    def build(
        self, module: wasmtime.Module, settings: Settings, config: dict[str, Any], key_prefix: str, check: bool
    ) -> ProxyWasmRunner:
        guest = inspect_filter(module, settings.module_label, key_prefix)
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
            config["converters"],
            plugin_configuration=dict(settings.guest_config),
        )
        if check:
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
