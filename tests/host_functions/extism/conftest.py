"""Fixtures: Extism plug-ins built from source with the official PDKs (once per session, cached by
content across sessions), and wasm transforms running them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from host_functions import WasmTransform
from host_functions.extism.build import build_plugin
from smt.batch import RecordBatch
from smt.plugin import PluginContext
from tests.host_functions.conftest import CollectErrors

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "wasm" / "extism"
GUESTS = Path(__file__).resolve().parent / "guests"

#: plug-in name -> its source folder
PLUGIN_SOURCES = {
    **{
        f"{folder.parent.name}-{folder.name}": folder
        for folder in sorted(EXAMPLES.glob("*/*"))
        if (folder / "Cargo.toml").is_file() or (folder / "go.mod").is_file()
    },
    "hostile": GUESTS / "hostile",
    "hostile-go": GUESTS / "hostile_go",
}
#: Go plug-ins (standard Go, wasip1) need WASI.
WASI_PLUGINS = frozenset(name for name in PLUGIN_SOURCES if name.endswith("-go"))


@pytest.fixture(scope="session")
def extism_plugins(require_guest_toolchains) -> dict[str, Path]:
    """Every Extism plug-in (examples and test guests) built from source: name -> module."""
    require_guest_toolchains("rust", "go")
    return {name: build_plugin(folder) for name, folder in PLUGIN_SOURCES.items()}


@pytest.fixture
def extism_transform(extism_plugins) -> Callable[..., WasmTransform]:
    """``extism_transform(plugin, alias="x", **config)``: a configured wasm transform running the
    plug-in (``function_name=...`` for ``function.name``: underscores stand for dots in keys without one)."""
    transforms: list[WasmTransform] = []

    def build(plugin: str, alias: str = "x", **config: Any) -> WasmTransform:
        props = {
            "module.path": str(extism_plugins[plugin]),
            **{(key if "." in key else key.replace("_", ".")): str(value) for key, value in config.items()},
        }
        if plugin in WASI_PLUGINS:
            props.setdefault("wasi", "true")
        transform = WasmTransform()
        transform.configure(props, PluginContext(alias, f"transforms.{alias}."))
        transforms.append(transform)
        return transform

    yield build
    for transform in transforms:
        transform.close()


def run_batch(transform: WasmTransform, records) -> tuple[list, CollectErrors]:
    """The records ``transform`` outputs for ``records`` (one batch), and the failures it reported."""
    errors = CollectErrors()
    out = transform.apply_batch(RecordBatch.from_records(list(records)), errors)
    return out.records(), errors
