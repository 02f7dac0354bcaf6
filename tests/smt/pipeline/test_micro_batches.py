"""Where a streaming micro-batch's time goes: one timing per micro-batch, in -v's log and --metrics-json."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

from smt.pipeline import run_pipeline
from smt.pipeline.micro_batches import from_progress
from smt.pipeline.report import metrics
from tests.smt.pipeline.test_streaming import streaming_spec, write_input


def test_sparks_phases_are_named_and_what_they_leave_out_is_other():
    progress = SimpleNamespace(batchId=7, numInputRows=480, durationMs={
        "latestOffset": 4, "getBatch": 1, "walCommit": 30, "queryPlanning": 12, "addBatch": 500,
        "commitOffsets": 25, "triggerExecution": 590})  # fmt: skip
    timing = from_progress(progress)
    assert (timing.batch_id, timing.records, timing.total_ms) == (7, 480, 590)
    assert (timing.offsets_ms, timing.checkpoint_ahead_ms, timing.planning_ms, timing.run_ms) == (5, 30, 12, 500)
    assert (timing.checkpoint_commit_ms, timing.other_ms) == (25, 18)


@pytest.mark.spark
def test_each_micro_batch_of_a_run_is_timed_logged_and_in_the_metrics(spark, tmp_path, caplog):
    write_input(tmp_path / "in", "a.txt", ["a1", "a2"])
    write_input(tmp_path / "in", "b.txt", ["b1"])
    spec = streaming_spec(tmp_path)  # one file per micro-batch

    with caplog.at_level(logging.INFO, logger="smt.pipeline.runner"):
        result = run_pipeline(spec, spark=spark)

    batches = result.micro_batches
    assert [b.batch_id for b in batches] == [0, 1]
    assert sorted(b.records for b in batches) == [1, 2]
    for timing in batches:
        named = timing.offsets_ms + timing.checkpoint_ahead_ms + timing.planning_ms + timing.run_ms
        assert 0 < timing.run_ms <= named + timing.checkpoint_commit_ms + timing.other_ms == timing.total_ms
        assert timing.transforms_ms >= 0
    logged = {b.batch_id: f"micro-batch {b.batch_id}: {b.records} record" for b in batches}
    assert all(line in caplog.text for line in logged.values()), caplog.text
    assert [b["batch_id"] for b in metrics(result, spec)["micro_batches"]] == [0, 1]
