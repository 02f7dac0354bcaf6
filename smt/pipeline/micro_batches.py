"""Where a streaming micro-batch's time goes: Spark's phases from its progress report, and our own.

Spark reports each micro-batch's phases (``StreamingQueryProgress.durationMs``):
finding the sources' new offsets, writing them ahead to the checkpoint,
planning the batch, running it (one job: read, decode, the chain, encode,
write and dead letters, which run together in each task), and committing
the batch to the checkpoint.  The pipeline adds its own bookkeeping after
the batch (committing the source's progress to its consumer group), and the
chain's stages report the time spent in them, summed over the tasks.

``smt run -v`` logs one line per micro-batch; ``--metrics-json`` lists them
(the last :data:`KEPT` of a run).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Mapping

__all__ = ["KEPT", "MicroBatchTiming", "from_progress"]

log = logging.getLogger(__name__)

#: How many micro-batches a run keeps for its metrics (the oldest are dropped).
KEPT = 1000

#: Our names for Spark's phases (``durationMs`` keys), in the order a micro-batch goes through them.
_SPARK_PHASES = {
    "offsets_ms": ("latestOffset", "getBatch"),
    "checkpoint_ahead_ms": ("walCommit",),
    "planning_ms": ("queryPlanning",),
    "run_ms": ("addBatch",),
    "checkpoint_commit_ms": ("commitOffsets",),
}


@dataclasses.dataclass
class MicroBatchTiming:
    """One micro-batch's phases, in milliseconds (wall time on the driver, except ``transforms_ms``).

    ``run_ms`` is the batch's job: reading, decoding, the chain, encoding and writing run together in
    each task.  ``transforms_ms`` is the time the chain's stages took, summed over the tasks (so it may
    exceed ``run_ms`` with several tasks).  ``other_ms`` is the trigger's time outside the named phases.
    """

    batch_id: int
    records: int
    total_ms: int
    offsets_ms: int = 0
    checkpoint_ahead_ms: int = 0
    planning_ms: int = 0
    run_ms: int = 0
    checkpoint_commit_ms: int = 0
    other_ms: int = 0
    transforms_ms: float = 0.0
    source_commit_ms: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def describe(self) -> str:
        return (
            f"micro-batch {self.batch_id}: {self.records:,} record{'' if self.records == 1 else 's'} "
            f"in {self.total_ms:,} ms "
            f"(offsets {self.offsets_ms}, checkpoint {self.checkpoint_ahead_ms}+{self.checkpoint_commit_ms}, "
            f"planning {self.planning_ms}, read-transform-write {self.run_ms} [chain {self.transforms_ms:.0f} "
            f"over the tasks], other {self.other_ms}); source commit {self.source_commit_ms:.0f} ms"
        )


def from_progress(progress: Any) -> MicroBatchTiming:
    """The timing of the micro-batch a ``StreamingQueryProgress`` reports (its own phases only)."""
    durations: Mapping[str, int] = progress.durationMs or {}
    phases = {name: sum(int(durations.get(key, 0)) for key in keys) for name, keys in _SPARK_PHASES.items()}
    total = int(durations.get("triggerExecution", 0))
    return MicroBatchTiming(
        batch_id=int(progress.batchId),
        records=int(progress.numInputRows or 0),
        total_ms=total,
        other_ms=max(0, total - sum(phases.values())),
        **phases,
    )
