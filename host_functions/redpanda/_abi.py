"""The Redpanda Data Transforms ABI as a :class:`host_functions.guest_abi.GuestAbi`."""

from __future__ import annotations

import dataclasses
from typing import Any

import wasmtime

from host_functions.guest_abi import REDPANDA, GuestBuild
from host_functions.redpanda._guest import inspect_redpanda_guest
from host_functions.redpanda._instance import StartFailed
from host_functions.redpanda._runner import RedpandaRunner
from host_functions.runtime.engine import runtime
from host_functions.runtime.record_bytes import load_converters
from host_functions.runtime.sandbox import Settings
from host_functions.runtime.single_entry import refuse_entry_choice, start_once
from smt.config import ConfigDef, ConfigType, Importance
from smt.errors import ConfigError

__all__ = ["RedpandaAbi"]

#: The import module of the Redpanda transform host's functions.
_HOST_MODULE = "redpanda_transform"
#: Redpanda reserves this prefix for the variables it sets itself.
_RESERVED_PREFIX = "REDPANDA_"


class RedpandaAbi:
    """Guests built with Redpanda's transform SDKs (Go, Rust, JavaScript)."""

    name = REDPANDA
    default = False
    config_def = (
        ConfigDef()
        .define(
            "output.topics",
            ConfigType.LIST,
            [],
            None,
            Importance.MEDIUM,
            "redpanda ABI: the transform's output topics (REDPANDA_OUTPUT_TOPIC_0..N); the first is where "
            "write_record sends records, the others are reachable by name (write_record_with_options). "
            "Empty: records stay on their own topic.",
        )
        .define(
            "input.topic",
            ConfigType.STRING,
            None,
            None,
            Importance.LOW,
            "redpanda ABI: the guest's REDPANDA_INPUT_TOPIC; empty: the topic of the record it reads.",
        )
    )

    @staticmethod
    def detect(module: wasmtime.Module) -> bool:
        """A Redpanda guest imports the host's ``redpanda_transform`` functions."""
        return any(imported.module == _HOST_MODULE for imported in module.imports)

    def build(self, build: GuestBuild) -> RedpandaRunner:
        settings, config, key_prefix = build.settings, build.config, build.key_prefix
        guest = inspect_redpanda_guest(build.module, settings.module_label, key_prefix)
        refuse_entry_choice(
            config, key_prefix, "Redpanda guests", "their _start loops over batches", "served per batch"
        )
        environment = dict(settings.guest_config)
        reserved = sorted(name for name in environment if name.upper().startswith(_RESERVED_PREFIX))
        if reserved:
            raise ConfigError.for_key(
                f"{key_prefix}config.{reserved[0]}",
                "is reserved: the host sets the REDPANDA_* environment variables itself",
            )
        runner = RedpandaRunner(
            runtime(),
            guest,
            _settings(settings),
            load_converters(config, key_prefix),
            output_topics=[str(topic) for topic in config["output.topics"]],
            input_topic=config["input.topic"] or None,
            environment=environment,
            max_outputs=config["max.outputs.per.record"],
        )
        if build.check:
            start_once(
                lambda: runner.instance(runner.input_topic or "input"),
                runner.close,
                StartFailed,
                key_prefix,
                lambda exc: f"Redpanda transform '{guest.label}' cannot run: {exc}",
            )
        return runner

    def input_fields(self, config: dict[str, Any]) -> frozenset[str]:
        """Key, value and headers make the record body; the topic picks the instance; timestamp and offset too."""
        return frozenset({"key", "value", "headers", "topic", "timestamp", "offset"})

    def changed_fields(self, config: dict[str, Any]) -> None:
        """A guest writes whole records."""
        return None


def _settings(settings: Settings) -> Settings:
    """Redpanda guests are WASI commands: WASI is always on (restricted, see the instance)."""
    return dataclasses.replace(settings, wasi=True, function_name="_start")
