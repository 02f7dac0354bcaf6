"""The built-in SMT benchmark compares like with like (no timing is asserted here)."""

import json
import random

import pytest

from smt.benchmarks import builtins as bench


def test_sample_values_are_about_200_bytes_of_json():
    rng = random.Random(1)
    sizes = [len(json.dumps(bench.sample_value(i, rng), separators=(",", ":"))) for i in range(50)]
    assert 160 <= sum(sizes) / len(sizes) <= 230


def test_smt_only_row_runs_on_a_small_scale():
    comparison = bench.smt_chain_comparison(2000)
    assert comparison.ours.records == comparison.baseline.records == 2000
    assert comparison.ours.label == "apply_batch"


@pytest.mark.spark
def test_pipeline_and_spark_sql_produce_the_same_records(spark):
    from smt.pipeline.runner import transform_dataframe

    previous = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "UTC")  # the Spark SQL baseline formats dates in the session zone
    try:
        df = bench.json_lines_dataframe(spark, 300)
        ours = transform_dataframe(df, bench._processor()).drop("_smt_dead_letter")
        bench.check_same_records(ours, bench.spark_sql_chain(df), rows=300)
        sample = ours.where("offset = 1").first()
        assert sample.topic == "orders-20170103"
        assert set(json.loads(sample.value)) == {"id", "customer_name", "email", "ssn", "card", "amount",
                                                 "active", "source_topic", "source_partition"}
        df.unpersist()
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous)
