"""The Kafka benchmark runs its rows on a real broker and compares like with like (no timing asserted)."""

import pytest

from smt.benchmarks import kafka as bench

pytestmark = [pytest.mark.kafka, pytest.mark.spark, pytest.mark.slow]


def test_both_rows_run_on_a_small_topic_after_their_outputs_agree(spark, kafka_broker):
    topics = bench._Topics(spark, kafka_broker.bootstrap_servers)
    upper = bench.to_upper_comparison(spark, topics, 1000, rounds=1)
    json_chain, unchecked = bench.json_chain_comparisons(spark, topics, 1000, rounds=1)
    assert [(c.ours.records, c.baseline.records, c.target_ratio) for c in (upper, json_chain, unchecked)] == [
        (1000, 1000, 0.8),
        (1000, 1000, 1.0),
        (1000, 1000, None),
    ]
    assert json_chain.baseline is unchecked.baseline  # one baseline, measured once
    # Each job wrote every record (ours checks its own count).
    assert len(kafka_broker.consume("upper-spark", 1000)) == 1000


def test_a_difference_between_the_two_jobs_is_caught():
    with pytest.raises(AssertionError, match=r"^the two jobs differ \(2 and 2 records\): "):
        bench._require_same([b"A", b"B"], [b"A", b"b"])
