"""Counts travel as one counts row per batch and come back as sums, whatever the session."""

import pyarrow as pa
import pytest

from smt.metrics import ChainMetrics, StageMetrics
from smt.pipeline.counts import COUNTS_COLUMN, CountsLayout, observed_values
from smt.pipeline.processor import BatchCounts


def sums_of(rows: list[pa.RecordBatch], layout: CountsLayout) -> dict:
    """What DataFrame.observe's sums give over these batches' counts rows."""
    arrays = [row for batch in rows for row in batch.column(COUNTS_COLUMN).to_pylist() if row is not None]
    return {f"f{index}": sum(values[index] for values in arrays) for index in range(len(arrays[0]))}


def test_counts_rows_sum_to_the_batches_counts_and_stage_figures():
    layout = CountsLayout(("mask", "route"))
    schema = pa.schema([("value", pa.binary()), ("_smt_dead_letter", pa.bool_())])
    out = layout.without_counts(pa.RecordBatch.from_pylist([{"value": b"a", "_smt_dead_letter": False}], schema))
    first = ChainMetrics({"mask": StageMetrics(3, 3, 0, 0, 0.25)})
    second = ChainMetrics({"mask": StageMetrics(2, 2, 0, 1, 0.5), "route": StageMetrics(1, 0, 1, 0, 0.125)})
    rows = [out, layout.counts_row(out.schema, BatchCounts(3, 3, 3, 0, 0, 0), first),
            layout.counts_row(out.schema, BatchCounts(2, 0, 0, 1, 1, 1), second)]
    assert all(batch.schema == out.schema for batch in rows)
    assert rows[1].column("value").null_count == 1 and rows[1].column("_smt_dead_letter").null_count == 1

    counts, stages = layout.totals(sums_of(rows, layout))
    assert counts == BatchCounts(read=5, written=3, output_rows=3, filtered=1, failed=1, dead_lettered=1)
    assert stages["mask"] == StageMetrics(5, 5, 0, 1, pytest.approx(0.75))
    assert stages["route"] == StageMetrics(1, 0, 1, 0, pytest.approx(0.125))


def test_nothing_observed_counts_as_zeros():
    counts, stages = CountsLayout(("a",)).totals({})
    assert counts == BatchCounts() and stages["a"] == StageMetrics()


def test_observed_metrics_of_a_streaming_progress_read_alike_from_classic_and_connect():
    from pyspark.sql import Row

    classic = Row(f0=3, f1=2)
    connect = Row(values=[3, 2], schema={"type": "struct", "fields": [{"name": "f0"}, {"name": "f1"}]})
    assert observed_values(classic) == observed_values(connect) == {"f0": 3, "f1": 2}
