"""``WasmTransform``: user logic compiled to WebAssembly, as a chain transform."""

from __future__ import annotations

import hashlib
import os
from typing import Any, Mapping

import wasmtime

from host_functions.builtin_abis import BUILTIN_ABIS
from host_functions.guest_abi import AUTO, GuestAbi, GuestBuild, abi_config_defs, choose_abi, registered_abis
from host_functions.kafka_connect.fast_path import FastPath
from host_functions.kafka_connect.guest_abi import KafkaConnectAbi
from host_functions.kafka_connect.host_function import HostFunction
from host_functions.runtime.engine import runtime
from host_functions.runtime.module_file import read_module
from host_functions.runtime.record_bytes import Converters
from host_functions.runtime.sandbox import WASM32_MEMORY_MAX_BYTES, Settings, error_cause
from smt.batch import RecordBatch
from smt.config import ConfigDef, ConfigType, Importance, at_least, between, non_empty_string, one_of
from smt.converter import load_converter
from smt.errors import ConfigError
from smt.plugin import PluginContext
from smt.record import Record
from smt.transform import ErrorSink, Transform

__all__ = ["WasmTransform"]

GUEST_CONFIG_PREFIX = "config."
DEFAULT_TIMEOUT_MS = 1000
DEFAULT_MEMORY_MAX_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_OUTPUTS_PER_RECORD = 10_000
DEFAULT_MODULE_MAX_BYTES = 256 * 1024 * 1024
DEFAULT_MAX_OUTPUT_BYTES_PER_BATCH = 512 * 1024 * 1024


class _RaiseOnFail(ErrorSink):
    def fail(self, row: int, exc: BaseException) -> None:
        raise exc


class WasmTransform(Transform):
    """Runs a function exported by a WebAssembly module on every record.

    The module's ABI is detected from its imports and exports (see
    :mod:`host_functions.guest_abi`): the Kafka Connect Wasm transformer's,
    Redpanda Data Transforms, Extism plug-ins or proxy-wasm filters.
    Settings for the guest are given as ``config.NAME`` (read with
    ``get_config``), the converters' own settings as ``key.converter.*``,
    ``value.converter.*``, ``header.converter.*``; the ABI is in
    ``host_functions/ABI.md``.

    Compatible with the Kafka Connect Wasm transformer's ABI (host functions
    imported from ``env``, see ``host_functions/ABI.md``), plus drop, fan-out,
    timestamps, partition/offset, guest config and logging.  Sandboxed: a
    per-record time limit, a memory limit, no WASI unless enabled.  By default
    a whole batch runs in one Wasm call (the fast path).
    """

    name = "wasm"
    aliases = ("com.github.lburgazzoli.kafka.transformer.wasm.WasmTransformer",)
    config_def = (
        ConfigDef()
        .define(
            "module.path",
            ConfigType.PATH,
            validator=non_empty_string,
            importance=Importance.HIGH,
            doc="Path of the WebAssembly module (read once, when the transform is configured).",
        )
        .define(
            "module.max.bytes",
            ConfigType.LONG,
            DEFAULT_MODULE_MAX_BYTES,
            at_least(8),
            Importance.LOW,
            "Largest module.path file read; a bigger one, or a path that is not a regular file (a device, "
            "a FIFO), is refused.",
        )
        .define(
            "abi",
            ConfigType.STRING,
            AUTO,
            non_empty_string,
            Importance.MEDIUM,
            "The ABI the guest was built for: kafka-connect, redpanda, extism, proxy-wasm, or one a plugin "
            "registers; auto detects it from the module's imports and exports.",
        )
        .define(
            "function.name",
            ConfigType.STRING,
            None,
            non_empty_string,
            Importance.HIGH,
            "The exported function run per record. kafka-connect ABI (required there): no arguments, "
            "returns nothing or an i64 (ptr << 32 | len; bit 31 of len set means an error message).",
        )
        .define(
            "timeout.ms",
            ConfigType.LONG,
            DEFAULT_TIMEOUT_MS,
            at_least(1),
            Importance.MEDIUM,
            "Time limit per record; a record over it fails, the rest of the batch continues.",
        )
        .define(
            "memory.max.bytes",
            ConfigType.LONG,
            DEFAULT_MEMORY_MAX_BYTES,
            between(1 << 17, WASM32_MEMORY_MAX_BYTES, "a 32-bit WebAssembly memory holds at most 4 GiB"),
            Importance.MEDIUM,
            "Largest size any linear memory of the guest may grow to (at most 4 GiB, all a 32-bit memory can "
            "address); growing past it fails the record.",
        )
        .define(
            "max.outputs.per.record",
            ConfigType.INT,
            DEFAULT_MAX_OUTPUTS_PER_RECORD,
            at_least(1),
            Importance.LOW,
            "Most records one input record may output (emit_record fan-out included); a record that "
            "outputs more fails.",
        )
        .define(
            "max.output.bytes.per.batch",
            ConfigType.LONG,
            DEFAULT_MAX_OUTPUT_BYTES_PER_BATCH,
            at_least(1 << 16),
            Importance.LOW,
            "Bound on the bytes one batch's output records take (keys, values, headers): once the batch's "
            "outputs pass it, each record that needs more room fails.",
        )
        .define(
            "wasi",
            ConfigType.BOOLEAN,
            False,
            None,
            Importance.LOW,
            "Allow WASI imports: no preopened directories, no network, stdout/stderr go to the log.",
        )
        .define(
            "path",
            ConfigType.STRING,
            "fast",
            one_of("fast", "reference"),
            Importance.LOW,
            "fast: a batch per Wasm call through the adapter; reference: host functions in Python "
            "(used automatically when the guest imports a Python-only host function).",
        )
        .define(
            "key.converter",
            ConfigType.STRING,
            "bytearray",
            None,
            Importance.MEDIUM,
            "Converter between the record key and the bytes the guest sees.",
        )
        .define(
            "value.converter",
            ConfigType.STRING,
            "bytearray",
            None,
            Importance.MEDIUM,
            "Converter between the record value and the bytes the guest sees.",
        )
        .define(
            "header.converter",
            ConfigType.STRING,
            "bytearray",
            None,
            Importance.MEDIUM,
            "Converter between header values and the bytes the guest sees.",
        )
        .define_prefix(GUEST_CONFIG_PREFIX, "Settings for the guest, read with get_config (config.NAME).")
        .define_prefix(
            "key.converter.", "The key converter's settings.", plugin_kind="converter", plugin_key="key.converter"
        )
        .define_prefix(
            "value.converter.", "The value converter's settings.", plugin_kind="converter", plugin_key="value.converter"
        )
        .define_prefix(
            "header.converter.",
            "The header converter's settings.",
            plugin_kind="converter",
            plugin_key="header.converter",
        )
    ).merge(abi_config_defs(BUILTIN_ABIS))

    # --- configuration ------------------------------------------------------

    def configure(self, configs: Mapping[str, Any], context: PluginContext | None = None) -> None:
        super().configure(configs, context)
        self._build(read_module(self.config["module.path"], self.config["module.max.bytes"], self.context.prefix))

    def _build(self, module_bytes: bytes, check: bool = True) -> None:
        self._module_bytes = module_bytes
        prefix = self.context.prefix
        label = os.path.basename(self.config["module.path"])
        try:
            module = runtime().compile(module_bytes)
        except wasmtime.WasmtimeError as exc:
            raise ConfigError.for_key(
                f"{prefix}module.path",
                f"'{self.config['module.path']}' is not a valid WebAssembly module: {error_cause(exc)}",
                self.config["module.path"],
            ) from exc
        abi_class = choose_abi(self.config["abi"], module, self._registered_abis(), prefix)
        if abi_class not in BUILTIN_ABIS:  # a plugin's ABI: its own keys are parsed now
            self.config = self.config_def.merge(abi_class.config_def).parse(self.raw_config, prefix=prefix)
        self._abi: GuestAbi = abi_class()
        self.abi = abi_class.name
        self._path = self._abi.build(
            GuestBuild(
                module=module,
                module_digest=hashlib.sha256(module_bytes).hexdigest(),
                settings=self._settings(label),
                config=self.config,
                converters=Converters(
                    key=self._converter("key.converter", is_key=True),
                    value=self._converter("value.converter", is_key=False),
                    header=self._converter("header.converter", is_key=False),
                ),
                key_prefix=prefix,
                check=check,
                host_functions=self._plugin_functions(),
            )
        )
        #: The inspected kafka-connect guest (None for another ABI's).
        self.guest = self._abi.guest if isinstance(self._abi, KafkaConnectAbi) else None

    def _registered_abis(self) -> list[type[GuestAbi]]:
        # a registry of a test's own making may hold no ABI: the built-in ones serve then
        return registered_abis(self.context.plugins) or list(BUILTIN_ABIS)

    def _settings(self, label: str) -> Settings:
        config = self.config
        return Settings(
            alias=self.context.alias or self.name,
            module_label=label,
            function_name=config["function.name"] or "",
            timeout_ms=config["timeout.ms"],
            memory_max_bytes=config["memory.max.bytes"],
            wasi=config["wasi"],
            guest_config=self._guest_config(),
            logger_name=self.context.logger("transform").name,
            max_outputs_per_record=config["max.outputs.per.record"],
            max_output_bytes_per_batch=config["max.output.bytes.per.batch"],
        )

    def input_fields(self) -> frozenset[str] | None:
        """The record fields the guest can read (its ABI knows); None for all."""
        return self._abi.input_fields(self.config)

    def changed_fields(self) -> frozenset[str] | None:
        """The record fields the guest can change (its ABI knows); None for any."""
        return self._abi.changed_fields(self.config)

    @property
    def path(self) -> str:
        """``"fast"`` or ``"reference"``: the path this transform runs on (kafka-connect ABI)."""
        return "fast" if isinstance(self._path, FastPath) else "reference"

    def _plugin_functions(self) -> dict[str, HostFunction]:
        try:
            functions = self.context.plugins.host_functions()
        except Exception:  # no registry (bare use): only the built-in ABI
            functions = []
        return {f.name: f for f in functions}

    def _guest_config(self) -> dict[str, str]:
        return {
            key[len(GUEST_CONFIG_PREFIX) :]: str(value)
            for key, value in self.raw_config.items()
            if key.startswith(GUEST_CONFIG_PREFIX)
        }

    def _converter(self, key: str, is_key: bool) -> Any:
        prefix = key + "."
        sub = {k[len(prefix) :]: v for k, v in self.raw_config.items() if k.startswith(prefix)}
        context = PluginContext(self.context.alias, f"{self.context.prefix}{prefix}")
        try:
            return load_converter(self.config[key], sub, is_key, context=context)
        except KeyError as exc:
            raise ConfigError.for_key(f"{self.context.prefix}{key}", str(exc.args[0]), self.config[key]) from exc

    # --- running ------------------------------------------------------------

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        return self._path.apply_batch(batch, errors)

    def apply(self, record: Record) -> Record | None | list[Record]:
        out = self._path.apply_batch(RecordBatch.from_records([record]), _RaiseOnFail())
        records = out.records()
        if not records:
            return None
        return records[0] if len(records) == 1 else records

    def close(self) -> None:
        self._path = None

    # --- pickling (Spark ships the transform to executors) --------------------

    def __getstate__(self) -> dict[str, Any]:
        return {
            "raw_config": self.raw_config,
            "alias": self.context.alias,
            "prefix": self.context.prefix,
            "module_bytes": self._module_bytes,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        # The module travels as bytes: executors never re-read module.path.
        self.context = PluginContext(state["alias"], state["prefix"])
        self.raw_config = dict(state["raw_config"])
        self.config = self.config_def.parse(self.raw_config, prefix=self.context.prefix)
        self._build(state["module_bytes"], check=False)
