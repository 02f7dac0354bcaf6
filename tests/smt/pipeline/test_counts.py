"""Counts travel as one counts row per batch and come back as sums, whatever the session."""

import pyarrow as pa
import pytest

from smt.connector import Sink
from smt.metrics import ChainMetrics, StageMetrics
from smt.pipeline import PipelineSpec, run_pipeline
from smt.pipeline.counts import COUNTS_COLUMN, CountsLayout, observed_sums, observed_values
from smt.pipeline.processor import BatchCounts
from smt.plugins import hookimpl, load_plugins


def observed(rows: list[pa.RecordBatch]) -> dict:
    """What DataFrame.observe gives over these batches' counts rows: them all, joined by ';'."""
    return {
        COUNTS_COLUMN: ";".join(
            row for batch in rows for row in batch.column(COUNTS_COLUMN).to_pylist() if row is not None
        )
    }


def test_counts_rows_sum_to_the_batches_counts_and_stage_figures():
    layout = CountsLayout(("mask", "route"))
    schema = pa.schema([("value", pa.binary()), ("_smt_dead_letter", pa.bool_())])
    out = layout.without_counts(pa.RecordBatch.from_pylist([{"value": b"a", "_smt_dead_letter": False}], schema))
    first = ChainMetrics({"mask": StageMetrics(3, 3, 0, 0, 0.25)})
    second = ChainMetrics({"mask": StageMetrics(2, 2, 0, 1, 0.5), "route": StageMetrics(1, 0, 1, 0, 0.125)})
    rows = [
        out,
        layout.counts_row(out.schema, BatchCounts(3, 3, 3, 0, 0, 0), first),
        layout.counts_row(out.schema, BatchCounts(2, 0, 0, 1, 1, 1), second),
    ]
    assert all(batch.schema == out.schema for batch in rows)
    assert rows[1].column("value").null_count == 1 and rows[1].column("_smt_dead_letter").null_count == 1

    counts, stages = layout.totals(observed(rows))
    assert counts == BatchCounts(read=5, written=3, output_rows=3, filtered=1, failed=1, dead_lettered=1)
    assert stages["mask"] == StageMetrics(5, 5, 0, 1, pytest.approx(0.75))
    assert stages["route"] == StageMetrics(1, 0, 1, 0, pytest.approx(0.125))


def test_nothing_observed_counts_as_zeros():
    counts, stages = CountsLayout(("a",)).totals({})
    assert counts == BatchCounts() and stages["a"] == StageMetrics()


def test_observed_metrics_of_a_streaming_progress_read_alike_from_classic_and_connect():
    from pyspark.sql import Row

    classic = Row(_smt_counts="3,2;1,1")
    connect = Row(values=["3,2;1,1"], schema={"type": "struct", "fields": [{"name": "_smt_counts"}]})
    assert observed_values(classic) == observed_values(connect) == {"_smt_counts": "3,2;1,1"}


class IteratingSink(Sink):
    """Takes its records with ``toLocalIterator``: no SQL action, so Spark reports no observed counts."""

    name = "iterating"
    taken: list = []

    def write(self, df, batch_id=None):
        type(self).taken = [row["value"] for row in df.toLocalIterator()]


class IteratingPlugin:
    @hookimpl
    def smt_connectors(self):
        return [IteratingSink]


@pytest.mark.spark
def test_a_write_spark_observes_nothing_of_gets_the_accumulators_counts(spark, tmp_path):
    # #34 item 4: such a run showed zeros; its records' counts are the accumulators', its per-transform
    # figures unknown (the summary says so: tests/smt/pipeline/test_report.py).
    (tmp_path / "in.txt").write_text("a\nb\nc\n", encoding="utf-8")
    spec = PipelineSpec.from_properties(
        {"source": "file", "source.path": str(tmp_path / "in.txt"), "sink": "iterating"},
        plugins=load_plugins(entry_points=False, extra_plugins=[IteratingPlugin()]),
    )
    result = run_pipeline(spec, spark=spark)
    assert sorted(IteratingSink.taken) == [b"a", b"b", b"c"]
    assert (result.counts.read, result.counts.written, result.known) == (3, 3, "counts")


@pytest.mark.spark
def test_an_observation_spark_completed_without_metrics_reads_as_unknown_sums(spark):
    """Spark's adaptive plan drops the scan of a cache whose rows all fall out ahead of an empty shuffle;
    the observation inside the cache is completed with no metrics, which PySpark's own ``get`` fails on."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    def observed_through_a_cache(name: str, flag: bool) -> dict | None:
        observation = Observation(name)
        rows = spark.range(10).select(F.col("id").cast("string").alias("v"), F.lit(flag).alias("flag"))
        cached = rows.observe(observation, F.count(F.lit(1)).alias("n")).persist()
        try:
            cached.where(~F.col("flag")).select(F.substring_index("v", "\n", 1).alias("t")).distinct().collect()
            return observed_sums(observation, wait_s=10)
        finally:
            cached.unpersist()

    assert observed_through_a_cache("pruned", True) == {}
    assert observed_through_a_cache("counted", False) == {"n": 10}
