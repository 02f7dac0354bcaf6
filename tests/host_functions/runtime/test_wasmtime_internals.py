"""The calls into wasmtime-py internals (the fast path, the epoch deadline) are checked at import, naming the version."""

import pytest
import wasmtime

from host_functions.runtime import wasmtime_internals as internals


def test_the_installed_wasmtime_has_every_internal_the_fast_path_calls():
    internals.check_wasmtime_internals()


def test_a_wasmtime_without_them_fails_with_its_version_and_the_one_to_install(monkeypatch):
    monkeypatch.delattr(wasmtime.Store, "_context")
    monkeypatch.setattr(internals, "_installed", lambda: "99.0.0")

    with pytest.raises(
        internals.WasmtimeInternalsError,
        match=(
            r"^the Wasm runtime needs wasmtime-py internals that wasmtime 99\.0\.0 does not have "
            r"\(wasmtime\.Store\._context\); it was written against wasmtime 50\.0\.1: install that version "
            r"\(pip install wasmtime==50\.0\.1\)$"
        ),
    ):
        internals.check_wasmtime_internals()


def test_the_version_it_was_written_against_is_the_one_pyproject_pins():
    from pathlib import Path

    pyproject = (Path(__file__).parents[3] / "pyproject.toml").read_text()
    assert f'"wasmtime=={internals.TESTED_WITH}"' in pyproject
