"""The built-in SMT benchmark compares like with like (no timing is asserted here)."""

import json
import random

import pytest

from smt.benchmarks import builtins as bench

pytestmark = pytest.mark.benchmark


def test_sample_values_are_about_200_bytes_of_json():
    rng = random.Random(1)
    sizes = [len(json.dumps(bench.sample_value(i, rng), separators=(",", ":"))) for i in range(50)]
    assert 160 <= sum(sizes) / len(sizes) <= 230


def test_smt_only_row_runs_on_a_small_scale():
    comparison = bench.smt_chain_comparison(2000)
    assert comparison.ours.records == comparison.baseline.records == 2000
    assert comparison.ours.label == "apply_batch"


@pytest.mark.spark
def test_pipeline_and_spark_sql_produce_the_same_records(spark, tmp_path):
    previous = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "UTC")  # the Spark SQL baseline formats dates in the session zone
    try:
        source = str(tmp_path / "orders")
        bench.json_values(spark, 300).write.text(source)
        bench.check_same_records(spark, source, "orders", str(tmp_path / "out"))
        sample = json.loads((tmp_path / "out").glob("part-*").__next__().read_text().splitlines()[0])
        assert sample["topic"].startswith("orders-20")
        assert set(json.loads(sample["value"])) == {
            "id",
            "customer_name",
            "email",
            "ssn",
            "card",
            "amount",
            "active",
            "source_topic",
            "source_partition",
        }
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous)


@pytest.mark.spark
def test_a_difference_between_the_two_jobs_is_caught(spark, tmp_path, monkeypatch):
    source = str(tmp_path / "orders")
    bench.json_values(spark, 20).write.text(source)
    monkeypatch.setitem(bench.CHAIN_PROPERTIES, "transforms.mask.fields", "ssn")  # ours no longer masks card
    with pytest.raises(AssertionError, match="the two jobs differ"):
        bench.check_same_records(spark, source, "orders", str(tmp_path / "out"))
