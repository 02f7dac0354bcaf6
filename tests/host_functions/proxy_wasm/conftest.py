"""proxy-wasm filters built from source with the official SDKs, once per session, and transforms over them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from host_functions import WasmTransform
from host_functions.proxy_wasm.build import build_filter
from smt.batch import RecordBatch
from smt.maven import cache_dir
from smt.plugin import PluginContext
from smt.record import Record
from tests.host_functions.conftest import CollectErrors

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "wasm" / "proxy-wasm"
GUESTS = Path(__file__).resolve().parent / "guests"
#: (name, language) -> source folder
SOURCES = {
    ("to_upper", "rust"): EXAMPLES / "to_upper" / "rust",
    ("pii_mask", "go"): EXAMPLES / "pii_mask" / "go",
    ("hostile", "rust"): GUESTS / "hostile" / "rust",
    ("hostile", "go"): GUESTS / "hostile" / "go",
}


@pytest.fixture(scope="session")
def proxy_wasm_filters(request, tmp_path_factory) -> dict[tuple[str, str], Path]:
    """``(name, language) -> module`` for the examples and the hostile test filters.

    Rust crates compile in the project cache's Cargo target folder (as the benchmark's do), so the SDK
    compiles once per machine.
    """
    cache = getattr(request.config, "cache", None)
    out_dir = Path(cache.mkdir("proxy-wasm-filters")) if cache is not None else tmp_path_factory.mktemp("proxy-wasm")
    return {key: build_filter(source, out_dir, cache_dir() / "cargo-target") for key, source in SOURCES.items()}


@pytest.fixture
def proxy_wasm_transform(proxy_wasm_filters) -> Callable[..., WasmTransform]:
    """``proxy_wasm_transform(name, language, **config)``: a configured wasm transform (closed after the test)."""
    transforms: list[WasmTransform] = []

    def build(name: str, language: str = "rust", **config: Any) -> WasmTransform:
        transform = WasmTransform()
        settings = {"module.path": str(proxy_wasm_filters[(name, language)]), **config}
        transform.configure(
            {(key if "." in key else key.replace("_", ".")): value for key, value in settings.items()},
            PluginContext(name, f"transforms.{name}."),
        )
        transforms.append(transform)
        return transform

    yield build
    for transform in transforms:
        transform.close()


def record(
    value: Any,
    key: Any = b"k",
    topic: str = "in",
    partition: int | None = 0,
    offset: int = 0,
    timestamp: int | None = 1_700_000_000_000,
    headers=(),
) -> Record:
    return Record(
        topic=topic,
        partition=partition,
        offset=offset,
        timestamp=timestamp,
        key=key,
        value=value.encode() if isinstance(value, str) else value,
        headers=headers,
    )


def run(transform: WasmTransform, records: list[Record]) -> tuple[RecordBatch, CollectErrors]:
    errors = CollectErrors()
    return transform.apply_batch(RecordBatch.from_records(records), errors), errors


def values(batch: RecordBatch) -> list:
    return list(batch.value)
