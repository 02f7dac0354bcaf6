"""The proxy-wasm ABI (Kafka network filters) as a :class:`host_functions.guest_abi.GuestAbi`."""

from __future__ import annotations

import dataclasses
from typing import Any

import wasmtime

from host_functions._runtime import runtime
from host_functions._sandbox import Settings
from host_functions.guest_abi import PROXY_WASM
from host_functions.proxy_wasm._guest import inspect_filter
from host_functions.proxy_wasm._instance import StartFailed
from host_functions.proxy_wasm._runner import ProxyWasmRunner
from smt.config import ConfigDef
from smt.errors import ConfigError

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
        if config["function.name"]:
            raise ConfigError.for_key(
                f"{key_prefix}function.name",
                "is not used by proxy-wasm filters (the host calls proxy_on_downstream_data): remove it",
                config["function.name"],
            )
        if config["path"] != "fast":
            raise ConfigError.for_key(
                f"{key_prefix}path", "proxy-wasm filters run on one path (a call per Produce request)", config["path"]
            )
        runner = ProxyWasmRunner(
            runtime(),
            guest,
            dataclasses.replace(settings, wasi=True, function_name="proxy_on_downstream_data"),
            config["converters"],
            plugin_configuration=dict(settings.guest_config),
        )
        if check:  # start once now, under the time limit, so a filter that cannot start fails here
            try:
                runner.instance()
            except StartFailed as exc:
                raise ConfigError.for_key(
                    f"{key_prefix}module.path", f"proxy-wasm filter '{guest.label}' cannot start: {exc.cause}"
                ) from exc
            finally:
                runner.close()
        return runner

    def input_fields(self, config: dict[str, Any]) -> frozenset[str]:
        """Key, value, headers and timestamp travel in the request; topic and partition address it."""
        return frozenset({"key", "value", "headers", "timestamp", "topic", "partition"})
