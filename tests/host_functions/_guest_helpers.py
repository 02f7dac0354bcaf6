"""Helpers shared by the tests of the guest ABIs built from SDK sources (proxy-wasm, Redpanda, Extism)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import wasmtime

from host_functions import WasmTransform
from smt.batch import RecordBatch
from smt.plugin import PluginContext
from smt.record import Record
from tests.host_functions.conftest import CollectErrors


def example_copy(tmp_path: Path, example: Path, module: Path, built_as: str) -> Path:
    """A copy of the example folder (without its guest sources), with ``module`` where its pipeline
    file expects it: ``build/BUILT_AS``."""
    folder = tmp_path / example.name
    shutil.copytree(example, folder, ignore=shutil.ignore_patterns("rust", "go"))
    (folder / "build").mkdir()
    shutil.copy(module, folder / "build" / built_as)
    return folder


def kafka_to_kafka(bootstrap_servers: str, source_topic: str) -> dict[str, str]:
    """The pipeline keys of a run from ``source_topic`` (from its start) to Kafka on one broker."""
    return {
        "source": "kafka",
        "source.topics": source_topic,
        "source.starting.offsets": "earliest",
        "source.kafka.bootstrap.servers": bootstrap_servers,
        "sink": "kafka",
        "sink.kafka.bootstrap.servers": bootstrap_servers,
    }


def configure_wat(path: Path, wat: str, alias: str, config: Mapping[str, str]) -> WasmTransform:
    """A wasm transform ``transforms.ALIAS.*`` over the module ``wat``, written to ``path`` (whose name
    the transform's messages show), configured with ``config`` besides ``module.path``."""
    path.write_bytes(wasmtime.wat2wasm(wat))
    transform = WasmTransform()
    transform.configure({"module.path": str(path), **config}, PluginContext(alias, f"transforms.{alias}."))
    return transform


def guest_transforms(modules: Mapping[tuple[str, str], Path]) -> Iterator[Callable[..., WasmTransform]]:
    """The body of a fixture: yields ``build(name, language, **config)``, closes what it built after the test.

    ``build`` configures a wasm transform ``transforms.NAME.*`` over ``modules[(name, language)]``;
    in ``config`` keys without a dot use underscores for dots (``output_topics`` is ``output.topics``).
    """
    transforms: list[WasmTransform] = []

    def build(name: str, language: str = "rust", **config: Any) -> WasmTransform:
        transform = WasmTransform()
        settings = {"module.path": str(modules[(name, language)]), **config}
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
