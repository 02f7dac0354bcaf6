"""What a benchmark measures and how it reports it."""

from __future__ import annotations

import dataclasses
import time
from typing import Callable


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


class RaiseErrors:
    """An error sink for benchmarks: a failed record is a broken benchmark."""

    def fail(self, row: int, exc: BaseException) -> None:
        raise exc


def zigzag_varint(value: int) -> bytes:
    """``value`` as Kafka writes it in a record: a zigzag varint (for naive hosts that build records by hand)."""
    zigzag, out = (value << 1) ^ (value >> 63), bytearray()
    while zigzag >= 0x80:
        out.append(zigzag & 0x7F | 0x80)
        zigzag >>= 7
    out.append(zigzag)
    return bytes(out)
