"""Modules that are not runnable Redpanda guests are refused when the transform is configured."""

from __future__ import annotations

import pytest

from host_functions import WasmTransform
from smt.errors import ConfigError
from smt.plugin import PluginContext
from tests.host_functions._guest_helpers import configure_wat

HEADER = '(import "redpanda_transform" "read_batch_header" (func (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))'
CHECK = '(import "redpanda_transform" "check_abi_version_2" (func $check))'


def _configure(tmp_path, wat: str, **config: str) -> WasmTransform:
    return configure_wat(tmp_path / "guest.wasm", wat, "rp", config)


def _guest(imports: str = CHECK, start: str = '(func (export "_start"))', memory: str = '(memory (export "memory") 1)'):
    return f"(module {imports} {memory} {start})"


@pytest.mark.parametrize(
    ("wat", "reason"),
    [
        (_guest(start=""), r"does not export `_start` as a function without parameters or results"),
        (_guest(start='(func (export "_start") (param i32))'), r"does not export `_start`"),
        (_guest(memory=""), r"does not export its `memory`"),
        (_guest(imports=HEADER), r"does not import redpanda_transform.check_abi_version_1 or _2"),
        (
            _guest(imports=CHECK + '(import "redpanda_transform" "read_all" (func))'),
            r"imports redpanda_transform.read_all, which is not part of Redpanda's transform ABI",
        ),
        (
            _guest(imports=CHECK + '(import "redpanda_transform" "write_record" (func (param i32) (result i32)))'),
            r"imports redpanda_transform.write_record with the signature",
        ),
        (
            _guest(imports=CHECK + '(import "redpanda_schema_registry" "check_abi_version_0" (func))'),
            r"imports redpanda_schema_registry.check_abi_version_0: the schema registry ABI is not supported by this host",
        ),
        (
            _guest(imports=CHECK + '(import "env" "get_value" (func (result i64)))'),
            r"imports env.get_value, which a Redpanda host does not provide",
        ),
    ],
)
def test_a_module_that_is_not_a_redpanda_guest_is_refused(tmp_path, wat, reason):
    with pytest.raises(ConfigError, match=r"transforms\.rp\.module\.path: Redpanda transform 'guest.wasm' " + reason):
        _configure(tmp_path, wat)


def test_a_guest_that_fails_before_its_first_batch_is_refused(tmp_path):
    with pytest.raises(
        ConfigError,
        match=r"cannot run: the guest failed before asking for its first batch: "
        r"trap: unreachable instruction executed",
    ):
        _configure(tmp_path, _guest(start='(func (export "_start") unreachable)'))


def test_a_guest_whose_start_returns_is_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"the guest's _start returned: it no longer reads batches"):
        _configure(tmp_path, _guest())


def test_a_guest_that_never_reaches_its_loop_is_cut_off(tmp_path):
    with pytest.raises(ConfigError, match=r"before asking for its first batch: timed out after 200 ms"):
        _configure(tmp_path, _guest(start='(func (export "_start") (loop (br 0)))'), **{"timeout.ms": "200"})


def test_the_redpanda_variables_are_reserved(redpanda_guests):
    transform = WasmTransform()
    with pytest.raises(ConfigError, match=r"transforms\.rp\.config\.REDPANDA_OUTPUT_TOPIC_0: is reserved"):
        transform.configure(
            {"module.path": str(redpanda_guests[("to_upper", "rust")]), "config.REDPANDA_OUTPUT_TOPIC_0": "x"},
            PluginContext("rp", "transforms.rp."),
        )


def test_the_abi_key_forces_redpanda_on_another_module(tmp_path):
    wat = '(module (import "env" "get_value" (func (result i64))) (memory (export "memory") 1))'
    with pytest.raises(ConfigError, match=r"does not export `_start`"):
        _configure(tmp_path, wat, abi="redpanda")


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("function.name", "to_upper", r"transforms\.rp\.function\.name: is not used by Redpanda guests"),
        ("path", "reference", r"transforms\.rp\.path: Redpanda guests run on one path"),
    ],
)
def test_kafka_connect_keys_that_mean_nothing_here_are_refused(redpanda_guests, key, value, reason):
    with pytest.raises(ConfigError, match=reason):
        WasmTransform().configure(
            {"module.path": str(redpanda_guests[("to_upper", "rust")]), key: value},
            PluginContext("rp", "transforms.rp."),
        )
