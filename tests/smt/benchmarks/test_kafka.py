"""The Kafka benchmark runs its rows on a real broker and compares like with like (no timing asserted)."""

import pytest

from smt.benchmarks import kafka as bench

pytestmark = pytest.mark.benchmark

pytestmark = [pytest.mark.kafka, pytest.mark.spark, pytest.mark.slow]


def test_every_row_runs_on_a_small_topic_after_their_outputs_agree(spark, kafka_broker):
    topics = bench._Topics(spark, kafka_broker.bootstrap_servers)
    upper = bench.to_upper_comparisons(spark, topics, 1000, rounds=1)
    json_rows = bench.json_chain_comparisons(spark, topics, 1000, rounds=1)
    assert [(c.name, c.ours.records, c.baseline.records, c.target_ratio) for c in (*upper, *json_rows)] == [
        ("kafka → Wasm to_upper → kafka", 1000, 1000, 0.8),
        ("kafka → Wasm to_upper → kafka, our librdkafka vs Spark's connector (at least once)", 1000, 1000, 1.0),
        ("kafka → Wasm to_upper → kafka, exactly once vs our at-least-once", 1000, 1000, 0.8),
        ("kafka → Wasm to_upper → kafka, exactly once vs hand-written", 1000, 1000, None),
        ("kafka → 4-SMT JSON chain → kafka", 1000, 1000, 1.0),
        ("kafka → 4-SMT JSON chain → kafka, our librdkafka vs Spark's connector (at least once)", 1000, 1000, 1.0),
        ("kafka → 4-SMT JSON chain → kafka, exactly once vs our at-least-once", 1000, 1000, 0.8),
        ("kafka → 4-SMT JSON chain → kafka, exactly once vs hand-written", 1000, 1000, None),
        ("the same without caching the output to check its topics", 1000, 1000, None),
    ]
    assert json_rows[0].baseline is json_rows[3].baseline  # one baseline, measured once
    assert upper[1].ours is upper[0].ours  # our default writer, against Spark's connector
    assert upper[2].ours is upper[3].ours and upper[2].baseline is upper[0].ours
    # Each job wrote every record (ours checks its own count).
    assert len(kafka_broker.consume("upper-spark", 1000)) == 1000
    assert len(kafka_broker.consume("upper-eos", 1000)) == 1000


def test_a_difference_between_the_two_jobs_is_caught():
    with pytest.raises(AssertionError, match=r"^the two jobs differ \(2 and 2 records\): "):
        bench._require_same([b"A", b"B"], [b"A", b"b"])
