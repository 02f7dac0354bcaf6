"""Per-transform counters: records in and out, dropped, failed, and time spent.

The chain fills a :class:`ChainMetrics` per batch on the executors; the
pipeline brings them back with the batch's output and adds them up
(:mod:`smt.pipeline.counts`), so the figures come from where the work was
done, not from driver-side guesses.
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["StageMetrics", "ChainMetrics"]


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
