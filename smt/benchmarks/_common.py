"""What a benchmark measures and how it reports it."""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Mapping, Sequence

import pyarrow as pa


@dataclasses.dataclass(frozen=True)
class Measurement:
    """``records`` processed in ``seconds`` by the path called ``label``."""

    label: str
    records: int
    seconds: float

    @property
    def records_per_second(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else float("inf")


@dataclasses.dataclass(frozen=True)
class Comparison:
    """Our path against its baseline on the same data, with the target: a ratio, or our records/s."""

    name: str
    ours: Measurement
    baseline: Measurement
    target_ratio: float | None = None
    target_rate: float | None = None

    @property
    def ratio(self) -> float:
        return self.ours.records_per_second / self.baseline.records_per_second

    @property
    def meets_target(self) -> bool | None:
        if self.target_rate is not None:
            return self.ours.records_per_second >= self.target_rate
        return None if self.target_ratio is None else self.ratio >= self.target_ratio

    @property
    def target(self) -> str:
        """The target as printed: ``50×`` or ``5M/s``; empty when there is none."""
        if self.target_rate is not None:
            return f"{self.target_rate / 1e6:g}M/s"
        return "" if self.target_ratio is None else f"{self.target_ratio:g}×"


def measure(label: str, records: int, work: Callable[[], object], repeat: int = 1) -> Measurement:
    """Time ``work`` (best of ``repeat`` runs) over ``records`` records."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return Measurement(label, records, best)


def alternating(
    name: str,
    records: int,
    ours: tuple,
    baseline: tuple,
    target: float | None = None,
    rounds: int = 3,
    warmup: int = 0,
) -> Comparison:
    """Best of ``rounds`` for each path, measured alternately so both see the same machine load.

    ``ours`` and ``baseline`` are ``(label, work)`` pairs.  ``warmup`` rounds run first, untimed: a JVM
    path's first runs load classes, compile generated code and warm the JIT.
    """
    for _ in range(warmup):
        for _label, work in (ours, baseline):
            work()
    best = best_alternating(records, rounds, ours, baseline)
    return Comparison(name, best[ours[0]], best[baseline[0]], target)


def best_alternating(records: int, rounds: int, *paths: tuple) -> dict[str, Measurement]:
    """Each ``(label, work)`` path's best of ``rounds``, the paths taking turns; by label."""
    best: dict[str, Measurement] = {}
    for _ in range(rounds):
        for label, work in paths:
            result = measure(label, records, work)
            if label not in best or result.seconds < best[label].seconds:
                best[label] = result
    return best


class RaiseErrors:
    """An error sink for benchmarks: a failed record is a broken benchmark."""

    def fail(self, row: int, exc: BaseException) -> None:
        raise exc


def wasm_transform(name: str, config: Mapping[str, str]):
    """A ``wasm`` transform configured as ``transforms.NAME.*`` = ``config`` (at least ``module.path``)."""
    from host_functions import WasmTransform
    from smt.plugin import PluginContext

    transform = WasmTransform()
    transform.configure(dict(config), PluginContext(name, f"transforms.{name}."))
    return transform


def kafka_connect_transform(module_path: str, path: str, function: str = "to_upper"):
    """A Kafka Connect ABI guest's ``function`` as a ``wasm`` transform on ``path`` (``fast`` or ``reference``)."""
    return wasm_transform(function, {"module.path": module_path, "function.name": function, "path": path})


def value_batches(values: pa.Array, batch_rows: int) -> list[pa.RecordBatch]:
    """``values`` as records of topic ``bench``, in Arrow batches of at most ``batch_rows``."""
    return pa.table({"value": values, "topic": pa.array(["bench"] * len(values))}).to_batches(max_chunksize=batch_rows)


def run_batches(transform, batches: Sequence[pa.RecordBatch]) -> list:
    """``transform`` over each Arrow batch in turn (a failed record raises); the output batches."""
    from smt.batch import RecordBatch

    return [transform.apply_batch(RecordBatch.from_arrow(batch), RaiseErrors()) for batch in batches]


def measure_batches(label: str, transform, batches: Sequence[pa.RecordBatch], records: int, repeat: int = 1):
    """:func:`measure` ``transform`` over ``batches``, after a first batch outside the timing (to compile,
    instantiate the guest and learn what it reads)."""
    run_batches(transform, batches[:1])
    return measure(label, records, lambda: run_batches(transform, batches), repeat=repeat)


def zigzag_varint(value: int) -> bytes:
    """``value`` as Kafka writes it in a record: a zigzag varint (for naive hosts that build records by hand)."""
    zigzag, out = (value << 1) ^ (value >> 63), bytearray()
    while zigzag >= 0x80:
        out.append(zigzag & 0x7F | 0x80)
        zigzag >>= 7
    out.append(zigzag)
    return bytes(out)
