"""The latency benchmark runs ours and the hand-written job on a real broker, tiny (no timing asserted)."""

import pytest

from smt.benchmarks import latency as bench
from smt.benchmarks.runner import console

pytestmark = [pytest.mark.benchmark, pytest.mark.kafka, pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(240)]


def test_every_sent_record_is_timed_through_ours_and_the_hand_written_job(spark, kafka_broker, tmp_path):
    topics = bench._Topics(spark, kafka_broker.bootstrap_servers)
    runs = bench._Bench(spark, topics, str(tmp_path), bench._Timing(warmup_s=0.5, measure_s=1.0, drain_s=60))
    rows = [runs.ours(50, bench.OURS), runs.handwritten(50)]
    assert [(row.job, row.rate) for row in rows] == [(bench.OURS, 50), (bench.HANDWRITTEN, 50)]
    for row in rows:
        assert row.expected > 0 and row.received >= row.expected  # at least once: every record came out
        assert 0 < row.percentile(50) <= row.percentile(99) <= row.percentile(100)
    out = console()
    with out.capture() as captured:
        out.print(bench.latency_table(rows))
    assert "hand-written PySpark" in captured.get() and "p99 / hw" in captured.get()


def test_a_value_carries_its_send_time():
    from smt.benchmarks.latency_probe import value

    assert value(7, 123) == b'{"id":7,"user":"user-7","email":"user7@example.com","sent_us":123}'
