"""proxy-wasm filters built from source with the official SDKs, once per session, and transforms over them."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

import pytest

from host_functions import WasmTransform
from host_functions.proxy_wasm.build import build_filter
from smt.maven import cache_dir
from tests.host_functions._guest_helpers import guest_transforms

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
def proxy_wasm_filters(request, tmp_path_factory, require_guest_toolchains) -> dict[tuple[str, str], Path]:
    """``(name, language) -> module`` for the examples and the hostile test filters.

    Rust crates compile in the project cache's Cargo target folder (as the benchmark's do), so the SDK
    compiles once per machine.
    """
    require_guest_toolchains("rust", "go")
    cache = getattr(request.config, "cache", None)
    out_dir = Path(cache.mkdir("proxy-wasm-filters")) if cache is not None else tmp_path_factory.mktemp("proxy-wasm")
    return {key: build_filter(source, out_dir, cache_dir() / "cargo-target") for key, source in SOURCES.items()}


@pytest.fixture
def proxy_wasm_transform(proxy_wasm_filters) -> Iterator[Callable[..., WasmTransform]]:
    """``proxy_wasm_transform(name, language, **config)``: a configured wasm transform (closed after the test)."""
    yield from guest_transforms(proxy_wasm_filters)
