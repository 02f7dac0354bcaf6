"""The kernel and its driver at their edges, with small WAT plug-ins: return codes, outputs outside
kernel memory, pointers past 4 GiB, outputs that fill the output area, inputs over the memory limit."""

import pytest

from host_functions import WasmTransform
from smt.plugin import PluginContext
from tests.host_functions.conftest import make_record
from tests.host_functions.extism.conftest import run_batch

IMPORTS = """
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_offset" (func $input_offset (result i64)))
  (import "extism:host/env" "free" (func $free (param i64)))
  (memory (export "memory") 1)"""


def plugin(body: str) -> str:
    return f'(module {IMPORTS}\n  (func (export "transform") (result i32) {body}))'


def big_output_plugin(size: int) -> str:
    """Outputs ``[{"value":"aaa..."}]``, ``size`` bytes (a multiple of 8), after freeing its input."""
    head, tail = b'[{"value":"', b'"}]'
    stores = "".join(
        f"(call $store_u8 (i64.add (local.get $out) (i64.const {i})) (i32.const {b}))"
        for i, b in [*enumerate(head), *((size - len(tail) + i, b) for i, b in enumerate(tail))]
    )
    return f"""(module {IMPORTS}
  (func (export "transform") (result i32) (local $out i64) (local $i i64)
    (call $free (call $input_offset))
    (local.set $out (call $alloc (i64.const {size})))
    (loop $fill
      (call $store_u64 (i64.add (local.get $out) (local.get $i)) (i64.const 0x6161616161616161))
      (local.set $i (i64.add (local.get $i) (i64.const 8)))
      (br_if $fill (i64.lt_u (local.get $i) (i64.const {size}))))
    {stores}
    (call $output_set (local.get $out) (i64.const {size}))
    (i32.const 0)))"""


def configure(wasm_file, wat: str, **config) -> WasmTransform:
    transform = WasmTransform()
    transform.configure(
        {"module.path": wasm_file(wat, "k.wasm"), **{k: str(v) for k, v in config.items()}},
        PluginContext("k", "transforms.k."),
    )
    return transform


@pytest.mark.parametrize(
    ("body", "cause"),
    [
        ("(i32.const 3)", "the plug-in returned code 3 without an error message"),
        (
            "(call $output_set (i64.const 0xffff0000) (i64.const 4096)) (i32.const 0)",
            "output_set named a range outside kernel memory",
        ),
        (
            "(call $store_u64 (i64.const 0x100000000) (i64.const 1)) (i32.const 0)",
            "out-of-bounds memory access (bad pointer)",
        ),
    ],
    ids=["return-code", "output-range", "pointer-past-4gib"],
)
def test_a_bad_call_fails_its_record(wasm_file, body, cause):
    out, errors = run_batch(configure(wasm_file, plugin(body)), [make_record()])

    assert out == [] and errors.rows == [0]
    assert errors.message(0).startswith(f"wasm transform 'k' (transform in k.wasm): {cause}")
    assert errors.message(0).endswith(" on the record at partition=0 offset=0 (row 0 of the batch)")


def test_outputs_that_fill_the_output_area_are_taken_out_and_the_run_goes_on(wasm_file):
    # each output is over half the memory limit: the output area holds one at a time
    transform = configure(wasm_file, big_output_plugin(100_000), **{"memory.max.bytes": 196_608})

    out, errors = run_batch(transform, [make_record(offset=i) for i in range(4)])

    assert errors.failures == []
    assert [(r.offset, len(r.value)) for r in out] == [(i, 100_000 - 14) for i in range(4)]


def test_an_output_that_can_never_fit_fails_its_record(wasm_file):
    transform = configure(wasm_file, big_output_plugin(100_000), **{"memory.max.bytes": 131_072})

    out, errors = run_batch(transform, [make_record(value=b"x" * 40_000), make_record()])

    assert errors.rows == [0]
    assert "its output does not fit in memory.max.bytes=131072" in errors.message(0)
    assert len(out) == 1 and len(out[0].value) == 100_000 - 14


def test_an_input_over_the_memory_limit_fails_its_record(wasm_file):
    transform = configure(wasm_file, plugin("(i32.const 0)"), **{"memory.max.bytes": 131_072})

    out, errors = run_batch(transform, [make_record(value=b"x" * 200_000), make_record(value=b"y")])

    assert errors.rows[0] == 0
    assert "does not fit in memory.max.bytes=131072" in errors.message(0)
