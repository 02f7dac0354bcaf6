"""Per-transform counters: records in and out, dropped, failed, and time spent.

The chain fills a :class:`ChainMetrics` per batch on the executors; the
pipeline adds them up through a Spark accumulator (:class:`MetricsParam`), so
the figures come from where the work was done, not from driver-side guesses.
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["StageMetrics", "ChainMetrics", "MetricsParam"]


@dataclasses.dataclass
class StageMetrics:
    """What one transform did: rows it ran on, rows it produced, and so on."""

    records_in: int = 0
    records_out: int = 0
    dropped: int = 0
    errors: int = 0
    seconds: float = 0.0

    def add(self, other: "StageMetrics") -> None:
        self.records_in += other.records_in
        self.records_out += other.records_out
        self.dropped += other.dropped
        self.errors += other.errors
        self.seconds += other.seconds


class ChainMetrics(dict):
    """Stage alias → :class:`StageMetrics`, in chain order."""

    def stage(self, alias: str) -> StageMetrics:
        metrics = self.get(alias)
        if metrics is None:
            metrics = self[alias] = StageMetrics()
        return metrics

    def merge(self, other: "ChainMetrics") -> "ChainMetrics":
        for alias, metrics in other.items():
            self.stage(alias).add(metrics)
        return self

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {alias: dataclasses.asdict(m) for alias, m in self.items()}


class MetricsParam:
    """A Spark ``AccumulatorParam`` that adds :class:`ChainMetrics` together."""

    def zero(self, value: ChainMetrics) -> ChainMetrics:
        return ChainMetrics()

    def addInPlace(self, value1: ChainMetrics, value2: ChainMetrics) -> ChainMetrics:  # noqa: N802 - Spark's name
        return value1.merge(value2)
