"""Differential tests against the official Extism runtime (the ``extism`` Python SDK, which runs
Extism's own kernel in its own wasmtime): the same plug-ins on the same inputs give the same bytes
and the same errors here."""

import extism
import orjson
import pytest
import wasmtime
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host_functions.extism._instance import ERROR, OUTPUT, PluginInstance
from host_functions.extism._plugin import inspect_plugin
from host_functions.runtime.engine import runtime
from host_functions.runtime.sandbox import Settings

#: Exercises the kernel's memory functions; the output is the input (read with input_load_u64 and
#: input_load_u8, written with store_u64 and store_u8) followed by eight facts, 8 bytes each:
#: length(0), length(block of 5), length(inside a block), alloc(0), length(freed block),
#: input_load_u8 past the end, input_length, a byte stored and loaded back.
#: An input starting with "!" fails through error_set with the message "refused".
KERNEL_TOUR_WAT = """(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "free" (func $free (param i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
  (import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))
  (memory (export "memory") 1)
  (func $fact (param $out i64) (param $n i64) (param $k i64) (param $value i64)
    (call $store_u64 (i64.add (local.get $out) (i64.add (local.get $n) (i64.mul (local.get $k) (i64.const 8))))
                     (local.get $value)))
  (func (export "transform") (result i32)
    (local $n i64) (local $out i64) (local $i i64) (local $h i64) (local $message i64)
    (local.set $n (call $input_length))
    (if (i64.gt_u (local.get $n) (i64.const 0))
      (then (if (i32.eq (call $input_load_u8 (i64.const 0)) (i32.const 33))
        (then
          (local.set $message (call $alloc (i64.const 7)))
          (call $store_u8 (local.get $message) (i32.const 114))
          (call $store_u8 (i64.add (local.get $message) (i64.const 1)) (i32.const 101))
          (call $store_u8 (i64.add (local.get $message) (i64.const 2)) (i32.const 102))
          (call $store_u8 (i64.add (local.get $message) (i64.const 3)) (i32.const 117))
          (call $store_u8 (i64.add (local.get $message) (i64.const 4)) (i32.const 115))
          (call $store_u8 (i64.add (local.get $message) (i64.const 5)) (i32.const 101))
          (call $store_u8 (i64.add (local.get $message) (i64.const 6)) (i32.const 100))
          (call $error_set (local.get $message))
          (return (i32.const 1))))))
    (local.set $out (call $alloc (i64.add (local.get $n) (i64.const 64))))
    (block $words (loop $word
      (br_if $words (i64.gt_u (i64.add (local.get $i) (i64.const 8)) (local.get $n)))
      (call $store_u64 (i64.add (local.get $out) (local.get $i)) (call $input_load_u64 (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 8)))
      (br $word)))
    (block $bytes (loop $byte
      (br_if $bytes (i64.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (local.get $out) (local.get $i)) (call $input_load_u8 (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br $byte)))
    (call $fact (local.get $out) (local.get $n) (i64.const 0) (call $length (i64.const 0)))
    (local.set $h (call $alloc (i64.const 5)))
    (call $fact (local.get $out) (local.get $n) (i64.const 1) (call $length (local.get $h)))
    (call $fact (local.get $out) (local.get $n) (i64.const 2) (call $length (i64.add (local.get $h) (i64.const 1))))
    (call $fact (local.get $out) (local.get $n) (i64.const 3) (call $alloc (i64.const 0)))
    (call $free (local.get $h))
    (call $fact (local.get $out) (local.get $n) (i64.const 4) (call $length (local.get $h)))
    (call $fact (local.get $out) (local.get $n) (i64.const 5)
                (i64.extend_i32_u (call $input_load_u8 (local.get $n))))
    (call $fact (local.get $out) (local.get $n) (i64.const 6) (local.get $n))
    (local.set $h (call $alloc (i64.const 3)))
    (call $store_u8 (local.get $h) (i32.const 7))
    (call $fact (local.get $out) (local.get $n) (i64.const 7) (i64.extend_i32_u (call $load_u8 (local.get $h))))
    (call $output_set (local.get $out) (i64.add (local.get $n) (i64.const 64)))
    (i32.const 0)))"""


#: Keeps a block's handle across calls; the output is length(the previous call's block), 8 bytes.
STALE_HANDLE_WAT = """(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (global $kept (mut i64) (i64.const 0))
  (memory (export "memory") 1)
  (func (export "transform") (result i32) (local $out i64)
    (local.set $out (call $alloc (i64.const 8)))
    (call $store_u64 (local.get $out) (call $length (global.get $kept)))
    (global.set $kept (call $alloc (i64.const 4)))
    (call $output_set (local.get $out) (i64.const 8))
    (i32.const 0)))"""


class Hosts:
    """One plug-in on both hosts: ``call(input) -> ("output", bytes) | ("error", message)``."""

    def __init__(self, wasm: bytes, function_name: str) -> None:
        rt = runtime()
        plugin = inspect_plugin(rt.compile(wasm), label="p", function_name=function_name, wasi=False, key_prefix="")
        settings = Settings("x", "p", function_name, 5000, 64 << 20, False, {}, "smt.transform.x")
        self.ours = PluginInstance(rt, plugin, settings)
        self.official = extism.Plugin(bytes(wasm), wasi=False)
        self.function_name = function_name

    def ours_call(self, data: bytes) -> tuple[str, bytes | str]:
        self.ours.stage([data])
        self.ours.run(0, 1)
        table, output = self.ours.harvest()
        ((row, rc, kind, length),) = table
        assert kind in (OUTPUT, ERROR)
        return ("output", output) if kind == OUTPUT else ("error", output.decode())

    def official_call(self, data: bytes) -> tuple[str, bytes | str]:
        try:
            return "output", bytes(self.official.call(self.function_name, data))
        except extism.Error as exc:
            return "error", str(exc)


@pytest.fixture(scope="module")
def kernel_tour() -> Hosts:
    return Hosts(wasmtime.wat2wasm(KERNEL_TOUR_WAT), "transform")


def test_kernel_facts_match_extisms_kernel(kernel_tour):
    ours, official = kernel_tour.ours_call(b"hello, kernel"), kernel_tour.official_call(b"hello, kernel")
    assert ours == official
    facts = [int.from_bytes(ours[1][13 + 8 * k : 21 + 8 * k], "little") for k in range(8)]
    assert facts == [0, 5, 0, 0, 0, 0, 13, 7]


def test_a_block_kept_from_an_earlier_call_is_no_longer_a_block():
    hosts = Hosts(wasmtime.wat2wasm(STALE_HANDLE_WAT), "transform")
    for _ in range(3):
        assert hosts.ours_call(b"x") == hosts.official_call(b"x") == ("output", bytes(8))


def test_an_error_set_by_the_plugin_is_its_message_on_both(kernel_tour):
    assert kernel_tour.ours_call(b"!no") == ("error", "refused")
    assert kernel_tour.official_call(b"!no") == ("error", "refused")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300))
def test_any_input_gives_the_same_bytes_as_on_extism(kernel_tour, data):
    assert kernel_tour.ours_call(data) == kernel_tour.official_call(data)


@pytest.fixture(scope="module")
def to_upper(extism_plugins) -> Hosts:
    return Hosts(extism_plugins["to_upper-rust"].read_bytes(), "transform")


documents = st.fixed_dictionaries(
    {
        "topic": st.text(max_size=20),
        "key": st.one_of(st.none(), st.text(max_size=20)),
        "value": st.recursive(
            st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=30),
            lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
            max_leaves=10,
        ),
        "headers": st.lists(
            st.fixed_dictionaries({"key": st.text(max_size=8), "value": st.text(max_size=8)}), max_size=3
        ),
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=documents)
def test_a_rust_pdk_plugin_gives_the_same_output_as_on_extism(to_upper, document):
    data = orjson.dumps(document)
    assert to_upper.ours_call(data) == to_upper.official_call(data)
