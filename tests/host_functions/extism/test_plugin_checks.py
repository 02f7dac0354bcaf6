"""What is refused when the transform is configured, naming the key and the cause; detection and
the abi override; a transform that travels to executors by pickling."""

import pickle

import pytest

from host_functions import WasmTransform
from smt.errors import ConfigError
from smt.plugin import PluginContext
from tests.host_functions.conftest import make_record
from tests.host_functions.extism.conftest import run_batch

#: A record-shape plug-in in WAT: the output is the input document, as a one-record array.
ECHO_WAT = """(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_offset" (func $input_offset (result i64)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (memory (export "memory") 1)
  (func (export "transform") (result i32)
    (local $n i64) (local $out i64) (local $i i64)
    (local.set $n (call $input_length))
    (local.set $out (call $alloc (i64.add (local.get $n) (i64.const 2))))
    (call $store_u8 (local.get $out) (i32.const 91))
    (block $done (loop $copy
      (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (local.get $out) (i64.add (local.get $i) (i64.const 1)))
                      (call $input_load_u8 (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br $copy)))
    (call $store_u8 (i64.add (local.get $out) (i64.add (local.get $n) (i64.const 1))) (i32.const 93))
    (call $output_set (local.get $out) (i64.add (local.get $n) (i64.const 2)))
    (i32.const 0)))"""


def configure(path: str, alias: str = "ext", **config: str) -> WasmTransform:
    transform = WasmTransform()
    transform.configure({"module.path": path, **config}, PluginContext(alias, f"transforms.{alias}."))
    return transform


def test_a_wat_plugin_runs_with_the_default_function_name(wasm_file):
    transform = configure(wasm_file(ECHO_WAT))
    record = make_record(value=b"v")

    out, errors = run_batch(transform, [record])

    assert transform.abi == "extism"
    assert errors.failures == [] and out == [record]


@pytest.mark.parametrize(
    ("wat", "config", "problem"),
    [
        (ECHO_WAT, {"function.name": "nope"}, "it does not export the function 'nope' named by function.name"),
        (
            '(module (import "extism:host/env" "reset" (func)) (func (export "transform") (param i32)))',
            {},
            "its function 'transform' must take no arguments and return an i32 or nothing, not (i32) -> ()",
        ),
        (
            '(module (import "extism:host/env" "alloc" (func (param i32) (result i64))) (func (export "transform")))',
            {},
            "it imports 'extism:host/env.alloc' as (i32) -> (i64); the host provides (i64) -> (i64)",
        ),
        (
            '(module (import "extism:host/env" "teleport" (func)) (func (export "transform")))',
            {},
            "it imports 'extism:host/env.teleport', which the host does not provide",
        ),
        (
            '(module (import "extism:host/env" "reset" (func)) (import "extism:host/user" "lookup" (func))'
            ' (func (export "transform")))',
            {},
            "it imports 'extism:host/user.lookup', which the host does not provide",
        ),
    ],
    ids=["no-export", "export-type", "import-type", "unknown-env", "unknown-user"],
)
def test_a_plugin_this_host_cannot_serve_is_refused_naming_the_problem(wasm_file, wat, config, problem):
    path = wasm_file(wat, "plugin.wasm")
    with pytest.raises(
        ConfigError,
        match=r"transforms\.ext\.module\.path: Extism plug-in 'plugin\.wasm' cannot be used: "
        r".*" + problem.replace("(", r"\(").replace(")", r"\)").replace(".", r"\."),
    ):
        configure(path, **config)


def test_a_go_plugin_needs_wasi(extism_plugins):
    with pytest.raises(
        ConfigError,
        match=r"it imports WASI function 'wasi_snapshot_preview1\.\w+' but WASI is off "
        r"\(set wasi=true to allow it\)",
    ):
        configure(str(extism_plugins["to_upper-go"]))


@pytest.mark.parametrize(
    ("body", "cause"),
    [
        ("(loop $forever (br $forever))", r"the plug-in cannot start: timed out after 100 ms \(timeout\.ms\)"),
        ("(unreachable)", r"the plug-in cannot start: trap: unreachable instruction executed"),
    ],
)
def test_a_plugin_whose_initialiser_never_returns_or_traps_is_refused(wasm_file, body, cause):
    wat = (
        f'(module (import "extism:host/env" "reset" (func)) (func (export "_initialize") {body}) '
        '(func (export "transform") (result i32) (i32.const 0)))'
    )
    with pytest.raises(ConfigError, match=r"transforms\.ext\.module\.path: Extism plug-in '\w+\.wasm': " + cause):
        configure(wasm_file(wat), **{"timeout.ms": "100"})


def test_the_abi_key_overrides_detection(wasm_file):
    # no import from extism:host/env: detected as the Kafka Connect ABI unless abi=extism says otherwise
    path = wasm_file('(module (memory (export "memory") 1) (func (export "transform") (result i32) (i32.const 0)))')
    with pytest.raises(ConfigError, match="function.name: is required and has no default"):
        configure(path)
    transform = configure(path, abi="extism")

    out, errors = run_batch(transform, [make_record()])

    assert transform.abi == "extism"
    # it set no output: an empty output is not a JSON array of records
    assert out == [] and "the output is not JSON" in errors.message(0)


def test_a_pickled_transform_runs_where_it_is_unpickled(extism_plugins):
    transform = configure(str(extism_plugins["to_upper-rust"]))
    copy = pickle.loads(pickle.dumps(transform))

    out, errors = run_batch(copy, [make_record(value=b"spark")])

    assert errors.failures == [] and [r.value for r in out] == [b"SPARK"]
    assert copy.input_fields() == frozenset({"topic", "key", "value", "headers"})
