"""host_functions.sdk._wasm_start: a reactor's _initialize becomes its start function."""

import pytest
import wasmtime

from host_functions.sdk._wasm_start import WasmRewriteError, self_initializing

REACTOR = """
(module
  (global $ready (export "ready") (mut i32) (i32.const 0))
  (memory (export "memory") 1)
  (func (export "_initialize") (global.set $ready (i32.const 1)))
  (func (export "work") (result i32) (global.get $ready))
  (data (i32.const 0) "kept"))
"""


def instantiate(module_bytes: bytes):
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    instance = wasmtime.Instance(store, wasmtime.Module(engine, module_bytes), [])
    return store, instance.exports(store)


def test_instantiating_runs_initialize_and_the_export_is_gone():
    store, exports = instantiate(self_initializing(wasmtime.wat2wasm(REACTOR)))

    assert exports["work"](store) == 1
    assert "_initialize" not in exports
    assert bytes(exports["memory"].read(store, 0, 4)) == b"kept"  # later sections untouched


def test_without_the_rewrite_nothing_initializes():
    store, exports = instantiate(wasmtime.wat2wasm(REACTOR))

    assert exports["work"](store) == 0


@pytest.mark.parametrize(
    ("module", "message"),
    [
        (b"not wasm", "not a WebAssembly binary module"),
        (wasmtime.wat2wasm('(module (func (export "work")))'), "the module has no '_initialize' function export"),
        (
            wasmtime.wat2wasm('(module (func $f) (export "_initialize" (func $f)) (start $f))'),
            "the module already has a start function",
        ),
        (wasmtime.wat2wasm("(module)") + b"\x07\x05\x01", "truncated section"),
    ],
)
def test_modules_it_cannot_rewrite_are_named(module, message):
    with pytest.raises(WasmRewriteError, match=message):
        self_initializing(module)
