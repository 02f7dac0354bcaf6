"""Redpanda guests built from source with the official SDKs, once per session, and transforms over them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from host_functions import WasmTransform
from host_functions.redpanda.build import build_go_guest, build_rust_guest
from smt.batch import RecordBatch
from smt.plugin import PluginContext
from smt.record import Record
from tests.host_functions.conftest import CollectErrors

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "wasm" / "redpanda"
GUESTS = Path(__file__).resolve().parent / "guests"
EXAMPLE_NAMES = ("to_upper", "filter", "router")
LANGUAGES = ("rust", "go")


@pytest.fixture(scope="session")
def redpanda_guests(request, tmp_path_factory) -> dict[tuple[str, str], Path]:
    """``(name, language) -> module`` for the examples and the hostile test guest, in Rust and Go.

    The Rust guests share one cargo target folder, so the SDK is compiled once.
    """
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
def redpanda_transform(redpanda_guests) -> Callable[..., WasmTransform]:
    """``redpanda_transform(name, language, **config)``: a configured wasm transform (closed after the test)."""
    transforms: list[WasmTransform] = []

    def build(name: str, language: str = "rust", **config: Any) -> WasmTransform:
        transform = WasmTransform()
        settings = {"module.path": str(redpanda_guests[(name, language)]), **config}
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
    offset: int = 0,
    timestamp: int | None = 1_700_000_000_000,
    headers=(),
) -> Record:
    return Record(
        topic=topic,
        partition=3,
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
