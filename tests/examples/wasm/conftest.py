"""Fixtures for the Wasm examples: every guest built from source once per session, and chains
configured from each example's own properties file."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from host_functions.sdk import build_guest, supported_extensions
from smt.chain import TransformChain
from smt.pipeline.spec import resolve_paths
from smt.properties import load_properties

EXAMPLES_DIR = Path(__file__).resolve().parents[3] / "examples" / "wasm"
#: Languages whose guests need WASI (``transforms.X.wasi=true``).
WASI_LANGUAGES = frozenset({"go"})


def example_sources() -> dict[tuple[str, str], Path]:
    """``(example, language) -> source`` for every guest source under ``examples/wasm``."""
    return {
        (source.parent.name, source.suffix.lstrip(".")): source
        for source in sorted(EXAMPLES_DIR.glob("*/*"))
        if source.suffix in supported_extensions() and source.stem == source.parent.name
    }


def languages_of(example: str) -> list[str]:
    """The languages ``example`` is written in, for parametrizing its tests."""
    return [language for (name, language) in example_sources() if name == example]


def example_properties(example: str) -> dict[str, Any]:
    """The example's pipeline properties, relative paths resolved against its folder."""
    path = EXAMPLES_DIR / example / f"{example}.properties"
    return resolve_paths(load_properties(path), str(path.parent))


def wasm_aliases(props: dict[str, Any]) -> list[str]:
    aliases = [alias.strip() for alias in str(props["transforms"]).split(",")]
    return [alias for alias in aliases if props.get(f"transforms.{alias}.type") == "wasm"]


@pytest.fixture(scope="session")
def guest_modules(request, tmp_path_factory, require_guest_toolchains) -> dict[tuple[str, str], Path]:
    """Every example guest compiled from source, in pytest's cache when it is on (a module is
    rebuilt only when its source or the SDK changed), else in a fresh temporary folder."""
    require_guest_toolchains(*sorted({language for _, language in example_sources()}))
    cache = getattr(request.config, "cache", None)
    out_dir = Path(cache.mkdir("wasm-guests")) if cache is not None else tmp_path_factory.mktemp("wasm-guests")
    return {key: build_guest(source, out_dir) for key, source in example_sources().items()}


@pytest.fixture
def example_chain(guest_modules) -> Callable[..., TransformChain]:
    """``example_chain(example, language, path="fast", wasm_only=False, **overrides)``: the example's
    own chain, its Wasm stages running the guest written in ``language`` on the engine ``path``
    (``wasm_only``: without its other stages).  An override of ``None`` removes the key."""
    chains: list[TransformChain] = []

    def build(
        example: str, language: str, path: str = "fast", wasm_only: bool = False, **overrides: str | None
    ) -> TransformChain:
        props = example_properties(example)
        if wasm_only:
            props["transforms"] = ",".join(wasm_aliases(props))
        for alias in wasm_aliases(props):
            props[f"transforms.{alias}.module.path"] = str(guest_modules[(example, language)])
            props[f"transforms.{alias}.path"] = path
            if language in WASI_LANGUAGES:
                props[f"transforms.{alias}.wasi"] = "true"
        for key, value in overrides.items():
            if value is None:
                props.pop(key, None)
            else:
                props[key] = value
        chain = TransformChain.from_properties(props)
        chains.append(chain)
        return chain

    yield build
    for chain in chains:
        chain.close()
