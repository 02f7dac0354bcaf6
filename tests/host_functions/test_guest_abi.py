"""ABI detection: the module says which system it was built for; ``abi`` overrides."""

from __future__ import annotations

import pytest
import wasmtime

from host_functions import WasmTransform
from host_functions.guest_abi import EXTISM, KAFKA_CONNECT, PROXY_WASM, REDPANDA, detect_abi
from smt.errors import ConfigError
from smt.plugin import PluginContext

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
    assert detect_abi(wasmtime.Module(wasmtime.Engine(), wat)) == abi


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
    with pytest.raises(ConfigError, match=r"transforms\.t\.abi: .*must be one of auto, kafka-connect"):
        transform.configure(
            {"module.path": wasm_file(_KAFKA_CONNECT), "function.name": "f", "abi": "wasi"},
            PluginContext("t", "transforms.t."),
        )
