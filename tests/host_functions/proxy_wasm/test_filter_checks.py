"""Modules that are not runnable proxy-wasm network filters are refused when the transform is configured."""

from __future__ import annotations

import pickle

import pytest

from host_functions import WasmTransform
from smt.errors import ConfigError
from tests.host_functions._guest_helpers import configure_wat, record, run, values

VERSION = '(func (export "proxy_abi_version_0_2_1"))'
CALLBACKS = (
    '(func (export "proxy_on_context_create") (param i32 i32)) '
    '(func (export "proxy_on_downstream_data") (param i32 i32 i32) (result i32) (i32.const 0))'
)
ALLOCATOR = '(func (export "proxy_on_memory_allocate") (param i32) (result i32) (i32.const 1024))'


def _configure(tmp_path, wat: str, **config: str) -> WasmTransform:
    return configure_wat(tmp_path / "filter.wasm", wat, "pw", config)


def _filter(
    imports: str = "",
    version: str = VERSION,
    callbacks: str = CALLBACKS,
    allocator: str = ALLOCATOR,
    memory: str = '(memory (export "memory") 1)',
    extra: str = "",
) -> str:
    return f"(module {imports} {memory} {version} {callbacks} {allocator} {extra})"


@pytest.mark.parametrize(
    ("wat", "reason"),
    [
        (
            _filter(version='(func (export "proxy_abi_version_0_1_0"))'),
            r"was built for proxy-wasm ABI 0\.1\.0; this host implements 0\.2\.0 and 0\.2\.1",
        ),
        (_filter(memory=""), r"does not export its `memory`"),
        (
            _filter(callbacks='(func (export "proxy_on_context_create") (param i32 i32))'),
            r"does not export `proxy_on_downstream_data`: it is not a network \(TCP\) filter",
        ),
        (_filter(allocator=""), r"exports no allocator \(`proxy_on_memory_allocate` or `malloc`\)"),
        (
            _filter(imports='(import "env" "get_value" (func (result i64)))'),
            r"imports env\.get_value, which a proxy-wasm host does not provide",
        ),
        (
            _filter(imports='(import "extism:host/env" "input_length" (func (result i64)))', extra=""),
            r"imports extism:host/env\.input_length, which a proxy-wasm host does not provide",
        ),
        (
            _filter(imports='(import "env" "proxy_log" (func (param i32 i32 i32)))'),
            r"imports env\.proxy_log with a signature no proxy-wasm host function has",
        ),
    ],
)
def test_a_module_that_is_not_a_network_filter_is_refused(tmp_path, wat, reason):
    with pytest.raises(ConfigError, match=r"transforms\.pw\.module\.path: proxy-wasm filter 'filter\.wasm' " + reason):
        _configure(tmp_path, wat, abi="proxy-wasm")


def test_the_abi_is_detected_from_the_version_export(tmp_path):
    transform = _configure(tmp_path, _filter())
    assert transform.abi == "proxy-wasm"
    assert transform.input_fields() == frozenset({"key", "value", "headers", "timestamp", "topic", "partition"})


def test_a_filter_whose_start_traps_is_refused(tmp_path):
    with pytest.raises(
        ConfigError,
        match=r"transforms\.pw\.module\.path: proxy-wasm filter 'filter\.wasm' cannot "
        r"start: trap: unreachable instruction executed",
    ):
        _configure(tmp_path, _filter(extra='(func (export "_initialize") unreachable)'))


def test_a_filter_whose_start_never_ends_is_cut_off(tmp_path):
    with pytest.raises(ConfigError, match=r"cannot start: timed out after 200 ms \(timeout\.ms\)"):
        _configure(tmp_path, _filter(extra='(func (export "_initialize") (loop (br 0)))'), **{"timeout.ms": "200"})


def test_host_functions_a_network_filter_does_not_need_answer_unimplemented(tmp_path):
    # proxy_http_call answers UNIMPLEMENTED (12): this filter traps unless it does
    call = '(import "env" "proxy_http_call" (func $http (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))'
    check = (
        '(func (export "proxy_on_new_connection") (param i32) (result i32) '
        "(if (i32.ne (call $http (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) "
        "(i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)) (i32.const 12)) "
        "(then unreachable)) (i32.const 0))"
    )
    transform = _configure(tmp_path, _filter(imports=call, extra=check))
    out, errors = run(transform, [record("passes untouched")])
    assert errors.failures == [] and values(out) == [b"passes untouched"]


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("function.name", "to_upper", r"transforms\.pw\.function\.name: is not used by proxy-wasm filters"),
        ("path", "reference", r"transforms\.pw\.path: proxy-wasm filters run on one path"),
    ],
)
def test_kafka_connect_keys_that_mean_nothing_here_are_refused(tmp_path, key, value, reason):
    with pytest.raises(ConfigError, match=reason):
        _configure(tmp_path, _filter(), **{key: value})


def test_a_configured_transform_travels_to_executors(proxy_wasm_transform):
    transform = proxy_wasm_transform("to_upper")
    copy = pickle.loads(pickle.dumps(transform))
    out, errors = run(copy, [record("shipped")])
    assert errors.failures == [] and values(out) == [b"SHIPPED"]
    copy.close()
