"""Extism plug-ins through the ``wasm`` transform (``transforms.X.abi=extism``, detected from
imports of ``extism:host/env``).

The kernel (``extism:host/env``'s memory functions) is this host's own, in Wasm
(``kernel.wat``), linked with the plug-in in one bounded store; the other
``extism:host/env`` functions (config, variables, logging) are served in Python, and
``http_request`` is refused.  Two record shapes, both used with Kafka:

- **record in, records out** (the XTP Kafka demo): ``function.name`` (default
  ``transform``) takes the record as a JSON document and returns a JSON array of
  records (:mod:`host_functions.extism._documents`);
- **host functions** (the Kafka Connect Extism transformer): the export takes no input
  and reads and sets the record through ``extism:host/user`` imports
  (:mod:`host_functions.extism._connect_host`).

``host_functions/ABI.md`` ("Extism plug-ins") is the user's reference.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import wasmtime

from host_functions.extism._plugin import inspect_plugin
from host_functions.extism._runner import ExtismRunner, StartFailure
from host_functions.guest_abi import EXTISM, GuestBuild
from host_functions.runtime.engine import runtime
from smt.config import ConfigDef
from smt.errors import ConfigError

__all__ = ["ExtismAbi", "DEFAULT_FUNCTION_NAME"]

#: The import module of the Extism kernel's functions.
_KERNEL_MODULE = "extism:host/env"
#: The export run per record when ``function.name`` is not set (the XTP Kafka demo's).
DEFAULT_FUNCTION_NAME = "transform"


class ExtismAbi:
    """The :class:`host_functions.guest_abi.GuestAbi` of Extism plug-ins."""

    name = EXTISM
    default = False
    config_def = ConfigDef()

    @staticmethod
    def detect(module: wasmtime.Module) -> bool:
        """An Extism plug-in imports the Extism kernel's ``extism:host/env`` functions."""
        return any(imported.module == _KERNEL_MODULE for imported in module.imports)

    def build(self, build: GuestBuild) -> ExtismRunner:
        settings, config, key_prefix = build.settings, build.config, build.key_prefix
        function_name = config.get("function.name") or DEFAULT_FUNCTION_NAME
        plugin = inspect_plugin(
            build.module,
            label=settings.module_label,
            function_name=function_name,
            wasi=config["wasi"],
            key_prefix=key_prefix,
        )

        runner = ExtismRunner(
            runtime(),
            plugin,
            dataclasses.replace(settings, function_name=function_name),
            build.converters,
            config["max.outputs.per.record"],
        )
        if build.check:
            try:
                runner.start()  # a plug-in that cannot start fails now, under the time limit
            except StartFailure as failure:
                raise ConfigError.for_key(
                    f"{key_prefix}module.path", f"Extism plug-in '{settings.module_label}': {failure.cause}"
                ) from failure
        return runner

    def input_fields(self, config: dict[str, Any]) -> frozenset[str] | None:
        """Both shapes give the plug-in the topic, key, value and headers."""
        return frozenset({"topic", "key", "value", "headers"})

    def changed_fields(self, config: dict[str, Any]) -> None:
        """A plug-in returns whole records."""
        return None
