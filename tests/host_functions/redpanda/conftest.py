"""Redpanda guests built from source with the official SDKs, once per session, and transforms over them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from host_functions import WasmTransform
from host_functions.redpanda.build import build_go_guest, build_rust_guest
from smt.record import Record
from tests.host_functions._guest_helpers import guest_transforms
from tests.host_functions._guest_helpers import record as guest_record

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "wasm" / "redpanda"
GUESTS = Path(__file__).resolve().parent / "guests"
EXAMPLE_NAMES = ("to_upper", "filter", "router")
LANGUAGES = ("rust", "go")


@pytest.fixture(scope="session")
def redpanda_guests(request, tmp_path_factory, require_guest_toolchains) -> dict[tuple[str, str], Path]:
    """``(name, language) -> module`` for the examples and the hostile test guest, in Rust and Go.

    The Rust guests share one cargo target folder, so the SDK is compiled once.
    """
    require_guest_toolchains(*LANGUAGES)
    cache = getattr(request.config, "cache", None)
    out_dir = Path(cache.mkdir("redpanda-guests")) if cache is not None else tmp_path_factory.mktemp("redpanda")
    sources = {(name, language): EXAMPLES / name / language for name in EXAMPLE_NAMES for language in LANGUAGES}
    sources.update({("hostile", language): GUESTS / "hostile" / language for language in LANGUAGES})
    built = {}
    for (name, language), source in sources.items():
        if language == "rust":
            built[(name, language)] = build_rust_guest(source, out_dir, out_dir / "cargo-target")
        else:
            built[(name, language)] = build_go_guest(source, out_dir)
    return built


@pytest.fixture
def redpanda_transform(redpanda_guests) -> Iterator[Callable[..., WasmTransform]]:
    """``redpanda_transform(name, language, **config)``: a configured wasm transform (closed after the test)."""
    yield from guest_transforms(redpanda_guests)


def record(value: Any, **fields: Any) -> Record:
    """A test record on partition 3 (guests must carry it through)."""
    return guest_record(value, partition=3, **fields)
