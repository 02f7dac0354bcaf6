"""ABI detection: the module says which system it was built for; ``abi`` overrides; a plugin adds an ABI."""

from __future__ import annotations

import pytest
import wasmtime

from host_functions import WasmTransform
from host_functions.guest_abi import (
    EXTISM,
    KAFKA_CONNECT,
    PROXY_WASM,
    REDPANDA,
    GuestBuild,
    detect_abi,
    registered_abis,
)
from smt.batch import RecordBatch
from smt.config import ConfigDef, ConfigType, Importance
from smt.errors import ConfigError
from smt.plugin import PluginContext
from smt.plugins import hookimpl, load_plugins
from smt.record import Record

_REDPANDA = """(module
  (import "redpanda_transform" "check_abi_version_2" (func))
  (memory (export "memory") 1)
  (func (export "_start")))"""

_EXTISM = """(module
  (import "extism:host/env" "input_length" (func (result i64)))
  (memory (export "memory") 1)
  (func (export "transform") (result i32) (i32.const 0)))"""

_PROXY_WASM = """(module
  (memory (export "memory") 1)
  (func (export "proxy_abi_version_0_2_1")))"""

_KAFKA_CONNECT = """(module
  (import "env" "get_value" (func (result i64)))
  (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) (i32.const 0))
  (func (export "f")))"""


@pytest.mark.parametrize(
    "wat, abi",
    [(_REDPANDA, REDPANDA), (_EXTISM, EXTISM), (_PROXY_WASM, PROXY_WASM), (_KAFKA_CONNECT, KAFKA_CONNECT)],
)
def test_the_abi_is_detected_from_imports_and_exports(wat, abi):
    module = wasmtime.Module(wasmtime.Engine(), wat)
    assert detect_abi(module, registered_abis(), "transforms.t.module.path").name == abi


def test_the_four_built_in_abis_register_through_the_hook_kafka_connect_the_default():
    abis = registered_abis()
    assert [abi.name for abi in abis] == [KAFKA_CONNECT, REDPANDA, EXTISM, PROXY_WASM]
    assert [abi.name for abi in abis if abi.default] == [KAFKA_CONNECT]


def test_a_kafka_connect_guest_needs_function_name(wasm_file):
    transform = WasmTransform()
    with pytest.raises(ConfigError, match=r"transforms\.t\.function\.name: is required and has no default"):
        transform.configure({"module.path": wasm_file(_KAFKA_CONNECT)}, PluginContext("t", "transforms.t."))


def test_abi_overrides_detection(wasm_file):
    transform = WasmTransform()
    with pytest.raises(ConfigError, match=r"transforms\.t\.function\.name: is required"):
        transform.configure(
            {"module.path": wasm_file(_PROXY_WASM), "abi": "kafka-connect"}, PluginContext("t", "transforms.t.")
        )


def test_an_unknown_abi_name_is_refused(wasm_file):
    transform = WasmTransform()
    with pytest.raises(
        ConfigError,
        match=r"transforms\.t\.abi: no guest ABI has this name \(known: auto, kafka-connect, redpanda, extism, "
        r"proxy-wasm\)",
    ):
        transform.configure(
            {"module.path": wasm_file(_KAFKA_CONNECT), "function.name": "f", "abi": "wasi"},
            PluginContext("t", "transforms.t."),
        )


# A fifth ABI, from a plugin: its modules import "toy", it reads one key of its own, and it upper-cases
# values in Python (a toy: a real ABI would run the module).
_TOY = """(module
  (import "toy" "hello" (func))
  (memory (export "memory") 1))"""


class _UpperRunner:
    def __init__(self, suffix: str) -> None:
        self.suffix = suffix

    def apply_batch(self, batch: RecordBatch, errors) -> RecordBatch:
        return RecordBatch.from_records([r.replace(value=r.value.upper() + self.suffix) for r in batch.records()])


class _ToyAbi:
    name = "toy"
    default = False
    config_def = ConfigDef().define("toy.suffix", ConfigType.STRING, "", None, Importance.LOW, "Appended.")

    @staticmethod
    def detect(module: wasmtime.Module) -> bool:
        return any(imported.module == "toy" for imported in module.imports)

    def build(self, guest: GuestBuild) -> _UpperRunner:
        assert guest.key_prefix == "transforms.t." and guest.module_digest
        return _UpperRunner(guest.config["toy.suffix"].encode())

    def input_fields(self, config):
        return frozenset({"value"})

    def changed_fields(self, config):
        return frozenset({"value"})


class _ToyPlugin:
    @hookimpl
    def smt_guest_abis(self):
        return [_ToyAbi]


class _ClaimsEverything(_ToyAbi):
    name = "greedy"

    @staticmethod
    def detect(module: wasmtime.Module) -> bool:
        return True


class _GreedyPlugin:
    @hookimpl
    def smt_guest_abis(self):
        return [_ClaimsEverything]


def test_a_fifth_abi_arrives_as_a_plugin_detected_with_its_own_keys(wasm_file):
    plugins = load_plugins(entry_points=False, extra_plugins=[_ToyPlugin()])
    transform = WasmTransform()
    transform.configure(
        {"module.path": wasm_file(_TOY), "toy.suffix": "!"}, PluginContext("t", "transforms.t.", plugins)
    )

    assert transform.abi == "toy"
    assert transform.input_fields() == transform.changed_fields() == frozenset({"value"})
    assert transform.apply(Record(value=b"hi", topic="t")).value == b"HI!"
    # The built-ins are still detected beside it.
    kafka_connect = WasmTransform()
    kafka_connect.configure(
        {"module.path": wasm_file(_KAFKA_CONNECT), "function.name": "f"}, PluginContext("k", "transforms.k.", plugins)
    )
    assert kafka_connect.abi == KAFKA_CONNECT


def test_a_module_two_abis_claim_is_refused_naming_both(wasm_file):
    plugins = load_plugins(entry_points=False, extra_plugins=[_GreedyPlugin()])
    transform = WasmTransform()
    with pytest.raises(
        ConfigError,
        match=r"transforms\.t\.module\.path: the module matches the greedy and redpanda ABIs: set abi to the one",
    ):
        transform.configure({"module.path": wasm_file(_REDPANDA)}, PluginContext("t", "transforms.t.", plugins))
