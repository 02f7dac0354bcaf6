"""The per-process runtime: compiled modules cached by content hash, in memory and on disk."""

from __future__ import annotations

import hashlib
import os

import wasmtime

from host_functions.runtime.engine import CACHE_DIR_ENV, WasmRuntime
from tests.host_functions import wat_guests as g


def test_compiled_modules_are_cached_by_content_hash(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    wasm = wasmtime.wat2wasm(g.TO_UPPER)
    runtime = WasmRuntime()
    module = runtime.compile(wasm)
    assert runtime.compile(bytes(wasm)) is module
    cached = tmp_path / f"{hashlib.sha256(wasm).hexdigest()}.cwasm"
    assert cached.exists()
    # a fresh process (here: a fresh runtime) loads the serialized code
    stamp = os.path.getmtime(cached)
    other = WasmRuntime().compile(wasm)
    assert [e.name for e in other.exports] == [e.name for e in module.exports]
    assert os.path.getmtime(cached) == stamp


def test_a_corrupt_cache_entry_is_recompiled(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    wasm = wasmtime.wat2wasm(g.TO_UPPER)
    (tmp_path / f"{hashlib.sha256(wasm).hexdigest()}.cwasm").write_bytes(b"not compiled code")
    module = WasmRuntime().compile(wasm)
    assert "to_upper" in [e.name for e in module.exports]


def test_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, "off")
    monkeypatch.chdir(tmp_path)
    WasmRuntime().compile(wasmtime.wat2wasm(g.TO_UPPER))
    assert os.listdir(tmp_path) == []


def test_a_cache_directory_others_can_write_is_not_used(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv(CACHE_DIR_ENV, str(shared))
    WasmRuntime().compile(wasmtime.wat2wasm(g.TO_UPPER))
    assert os.listdir(shared) == []
