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
    """Our path against its baseline on the same data, with the target ratio."""

    name: str
    ours: Measurement
    baseline: Measurement
    target_ratio: float | None = None

    @property
    def ratio(self) -> float:
        return self.ours.records_per_second / self.baseline.records_per_second

    @property
    def meets_target(self) -> bool | None:
        return None if self.target_ratio is None else self.ratio >= self.target_ratio


def measure(label: str, records: int, work: Callable[[], object], repeat: int = 1) -> Measurement:
    """Time ``work`` (best of ``repeat`` runs) over ``records`` records."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return Measurement(label, records, best)


def alternating(name: str, records: int, ours: tuple, baseline: tuple, target: float | None = None,
                rounds: int = 3) -> Comparison:
    """Best of ``rounds`` for each path, measured alternately so both see the same machine load.

    ``ours`` and ``baseline`` are ``(label, work)`` pairs.
    """
    best: dict[str, Measurement] = {}
    for _ in range(rounds):
        for label, work in (ours, baseline):
            result = measure(label, records, work)
            if label not in best or result.seconds < best[label].seconds:
                best[label] = result
    return Comparison(name, best[ours[0]], best[baseline[0]], target)
