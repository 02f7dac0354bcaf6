"""Bad modules fail when the transform is configured, naming the module and what is missing."""

from __future__ import annotations

import pytest

from smt.errors import ConfigError
from tests.host_functions import wat_guests as g

MINIMAL = g.guest('(func (export "f") (call $reset))')


def test_not_wasm_names_the_file(wasm_file):
    from host_functions import WasmTransform
    from smt.plugin import PluginContext

    path = wasm_file(b"\x00asm garbage", name="junk.wasm")
    transform = WasmTransform()
    with pytest.raises(
        ConfigError, match=r"^transforms\.m\.module\.path: '.*junk\.wasm' is not a valid WebAssembly module"
    ):
        transform.configure({"module.path": path, "function.name": "f"}, PluginContext("m", "transforms.m."))


def test_unreadable_path():
    from host_functions import WasmTransform
    from smt.plugin import PluginContext

    with pytest.raises(
        ConfigError,
        match=r"^transforms\.m\.module\.path: cannot read WebAssembly module '/no/such\.wasm': No such file",
    ):
        WasmTransform().configure(
            {"module.path": "/no/such.wasm", "function.name": "f"}, PluginContext("m", "transforms.m.")
        )


def test_required_keys():
    # function.name is required by the kafka-connect ABI only, which is known once the module is read.
    from host_functions import WasmTransform
    from smt.plugin import PluginContext

    with pytest.raises(ConfigError) as info:
        WasmTransform().configure({}, PluginContext("m", "transforms.m."))
    assert str(info.value) == "transforms.m.module.path: is required and has no default"


@pytest.mark.parametrize(
    "source, function, problem",
    [
        (MINIMAL, "missing", "it does not export the function 'missing' named by function.name"),
        (
            MINIMAL.replace('(memory (export "memory") 1)', "(memory 1)"),
            "f",
            "it does not export a memory named 'memory'",
        ),
        (MINIMAL.replace('(export "alloc")', ""), "f", r"it does not export 'alloc\(i32\) -> i32'"),
        (
            g.guest('(func (export "f") (param i32))'),
            "f",
            r"its function 'f' must take no arguments and return nothing or i64, not \(i32\) -> \(\)",
        ),
        (
            g.guest('(func (export "f"))', extra='(import "env" "launch_missiles" (func))'),
            "f",
            "it imports 'env.launch_missiles', which the host does not provide",
        ),
        (
            g.guest('(func (export "f"))', extra='(import "other" "get_key" (func (result i64)))'),
            "f",
            "it imports 'other.get_key', which the host does not provide",
        ),
        (
            g.guest('(func (export "f"))', extra='(import "env" "get_key" (func (result i32)))'),
            "f",
            r"it imports 'env.get_key' as \(\) -> \(i32\); the host provides \(\) -> \(i64\)",
        ),
    ],
)
def test_module_problems(make_transform, source, function, problem):
    with pytest.raises(
        ConfigError,
        match=r"^transforms\.mask\.module\.path: WebAssembly module '[0-9a-f]+\.wasm' cannot be used: .*" + problem,
    ):
        make_transform(source, function)


def test_abi_version_marker(make_transform):
    current = g.guest('(func (export "f"))', extra='(global (export "smt_abi_version") i32 (i32.const 1))')
    assert make_transform(current, "f").path == "fast"
    future = g.guest('(func (export "f"))', extra='(global (export "smt_abi_version") i32 (i32.const 2))')
    with pytest.raises(ConfigError, match=r"module '[0-9a-f]+\.wasm' needs ABI version 2; this host implements 1"):
        make_transform(future, "f")
    as_function = g.guest('(func (export "f")) (func (export "smt_abi_version") (result i32) (i32.const 9))')
    with pytest.raises(ConfigError, match="needs ABI version 9"):
        make_transform(as_function, "f")


def test_start_function_trap_fails_at_build_time(make_transform):
    trapping = g.guest('(func (export "f")) (func $boom (unreachable)) (start $boom)')
    with pytest.raises(ConfigError, match=r"module '[0-9a-f]+\.wasm' cannot be instantiated"):
        make_transform(trapping, "f")


def test_start_function_that_never_returns_is_cut_off(make_transform):
    spinning = g.guest('(func (export "f")) (func $spin (loop $l (br $l))) (start $spin)')
    with pytest.raises(ConfigError, match=r"module '[0-9a-f]+\.wasm' cannot be instantiated"):
        make_transform(spinning, "f", timeout_ms=100)


@pytest.mark.parametrize("host_function", ["get_value", "get_key", "get_record", "get_topic", "get_timestamp"])
def test_start_function_reading_the_record_is_a_guest_error(make_transform, host_function):
    early = g.guest(
        f'(func (export "f")) (func $early (drop (call ${host_function}))) (start $early)', imports=(host_function,)
    )
    with pytest.raises(
        ConfigError,
        match=r"module\.path: WebAssembly module '[0-9a-f]+\.wasm' cannot be instantiated: the guest could not start "
        r"\(instantiation and start function\): a host function that reads or writes the record \(get_value, "
        r"set_value, get_record, \.\.\.\) was called from the guest's start function, and there is no record until "
        r"'f' is called",
    ):
        make_transform(early, "f")
