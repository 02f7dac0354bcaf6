"""Fixtures: WAT guests written to .wasm files, configured transforms, batches."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
import wasmtime

from host_functions import WasmTransform
from smt.batch import RecordBatch
from smt.plugin import PluginContext
from smt.record import Record

PATHS = ("fast", "reference")

#: The Rust guest written for the Kafka Connect Wasm transformer (examples/kafka_connect_rust).
KAFKA_CONNECT_RUST = Path(__file__).resolve().parents[2] / "examples" / "kafka_connect_rust"
#: Cargo's build state, kept between sessions: a cold build of the Rust guests takes ~30 s.
CARGO_TARGET_DIR = Path.home() / ".cache" / "spark-smt" / "cargo-target"


@pytest.fixture(scope="session")
def kafka_connect_rust_guest(tmp_path_factory, require_guest_toolchains) -> bytes:
    """The Kafka Connect transformer's Rust guest shape, built from source with cargo."""
    require_guest_toolchains("rust")
    from host_functions.sdk import build_cargo_guest

    out_dir = tmp_path_factory.mktemp("rust-guests")
    return build_cargo_guest(KAFKA_CONNECT_RUST, out_dir, target_dir=CARGO_TARGET_DIR).read_bytes()


class CollectErrors:
    """An error sink that records (row, exception) instead of raising."""

    def __init__(self) -> None:
        self.failures: list[tuple[int, BaseException]] = []

    def fail(self, row: int, exc: BaseException) -> None:
        self.failures.append((row, exc))

    @property
    def rows(self) -> list[int]:
        return [row for row, _ in self.failures]

    def message(self, row: int) -> str:
        return next(str(exc) for r, exc in self.failures if r == row)


def make_record(
    value: Any = b"value",
    topic: str = "input",
    key: Any = b"key",
    partition: int | None = 0,
    offset: int | None = 0,
    timestamp: int | None = 1_700_000_000_000,
    headers=(),
) -> Record:
    return Record(
        topic=topic, partition=partition, offset=offset, timestamp=timestamp, key=key, value=value, headers=headers
    )


@pytest.fixture
def wasm_file(tmp_path):
    """``wasm_file(wat_or_bytes)`` -> path of a .wasm file with those contents."""

    def write(source: str | bytes, name: str | None = None) -> str:
        data = wasmtime.wat2wasm(source) if isinstance(source, str) else source
        path = tmp_path / (name or f"{hashlib.sha1(data).hexdigest()[:10]}.wasm")
        path.write_bytes(data)
        return str(path)

    return write


@pytest.fixture
def make_transform(wasm_file):
    """``make_transform(wat, function, path="fast", alias="wasm", **config)`` -> a configured WasmTransform."""

    def build(
        source: str | bytes, function: str, path: str = "fast", alias: str = "mask", **config: Any
    ) -> WasmTransform:
        props = {"module.path": wasm_file(source), "function.name": function, "path": path}
        props.update({k.replace("_", "."): str(v) for k, v in config.items()})
        transform = WasmTransform()
        transform.configure(props, PluginContext(alias, f"transforms.{alias}."))
        return transform

    return build


def run(transform: WasmTransform, records: list[Record]) -> tuple[list[Record], list[int], CollectErrors]:
    """Run a batch; returns output records, their origins and the collected errors."""
    errors = CollectErrors()
    out = transform.apply_batch(RecordBatch.from_records(records), errors)
    return out.records(), list(out.origin), errors
