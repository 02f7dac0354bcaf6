"""The counts of a run that failed: what was committed, and which counts are uncertain.

A run that fails has counted what it processed, which is not what its sink
and dead-letter queue hold: a file write that fails commits nothing, a Kafka
write keeps what it sent before the failure.  :func:`failed_run_counts`
turns what the run knows (the records processed, which writes completed, how
each destination commits) into counts of what was committed, naming the ones
it cannot know:

- a batch run processes its records inside the sink's write (one Spark job);
  when that write completed, every record was processed and the sink holds
  them; when it did not, a sink that commits atomically (files) holds none,
  and any other (Kafka) an unknown part;
- the dead letters are written after the sink, with the same rule;
- a streaming run counts finished micro-batches, which are committed; the
  micro-batch that failed may have left records in a sink or queue that does
  not commit atomically.
"""

from __future__ import annotations

import dataclasses

from smt.connector import DEAD_LETTERS_PART as DEAD_LETTERS
from smt.connector import SINK_PART as SINK
from smt.pipeline.processor import BatchCounts

__all__ = ["FailedRunCounts", "failed_run_counts"]


@dataclasses.dataclass(frozen=True)
class FailedRunCounts:
    """Counts of what a failed run committed; ``uncertain`` names those that are bounds, not facts."""

    counts: BatchCounts
    uncertain: tuple[str, ...]


def failed_run_counts(
    processed: BatchCounts | None,
    *,
    streaming: bool,
    writes_done: frozenset[str],
    sink_atomic: bool,
    dead_letters_atomic: bool,
) -> FailedRunCounts:
    """What a failed run committed.

    ``processed`` is what the run counted (finished micro-batches when
    streaming; the records processed so far in a batch run, None when
    unknown); ``writes_done`` the batch writes that completed (:data:`SINK`,
    :data:`DEAD_LETTERS`); ``*_atomic`` whether a failed write leaves nothing.
    """
    counts = dataclasses.replace(processed) if processed is not None else BatchCounts()
    uncertain: list[str] = []
    if streaming:
        if not sink_atomic:
            uncertain += ["written", "output_rows"]
        if not dead_letters_atomic:
            uncertain.append("dead_lettered")
        return FailedRunCounts(counts, tuple(uncertain))
    if processed is None or SINK not in writes_done:
        uncertain += ["read", "filtered", "failed"]  # the job stopped part of the way through its input
    if SINK not in writes_done:
        if sink_atomic:
            counts.written = counts.output_rows = 0
        else:
            uncertain += ["written", "output_rows"]
    if DEAD_LETTERS not in writes_done:
        if dead_letters_atomic:
            counts.dead_lettered = 0
        else:
            uncertain.append("dead_lettered")
    return FailedRunCounts(counts, tuple(uncertain))
