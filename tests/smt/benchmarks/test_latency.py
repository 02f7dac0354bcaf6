"""The latency benchmark runs ours and the hand-written job on a real broker, tiny (no timing asserted)."""

import pytest

from smt.benchmarks import latency as bench
from smt.benchmarks.runner import console

pytestmark = [pytest.mark.benchmark, pytest.mark.kafka, pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(240)]


def test_every_sent_record_is_timed_through_ours_and_the_hand_written_job(spark, kafka_broker, tmp_path):
    topics = bench._Topics(spark, kafka_broker.bootstrap_servers)
    runs = bench._Bench(spark, topics, str(tmp_path), bench._Timing(warmup_s=0.5, measure_s=1.0, drain_s=60))
    rows = [runs.ours(50, bench.OURS), runs.handwritten(50), runs.ours(50, bench.OURS_JVM_JSON, bench.JVM_SETTINGS)]
    assert [(row.job, row.rate) for row in rows] == [
        (bench.OURS, 50), (bench.HANDWRITTEN, 50), (bench.OURS_JVM_JSON, 50)
    ]  # fmt: skip
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


def test_the_probe_reads_the_files_each_delta_commit_adds(tmp_path):
    """A Delta table's rows count once a commit in its log adds their file (paths are URL-encoded)."""
    import json
    import threading
    import time

    import pyarrow as pa
    import pyarrow.parquet as pq

    from smt.benchmarks.latency_probe import Arrivals, delta_stamps

    (tmp_path / "_delta_log").mkdir()
    (tmp_path / "day=2026-11-28").mkdir()
    pq.write_table(pa.table({"sent_us": [1, 2]}), tmp_path / "day=2026-11-28" / "part-0.parquet")
    pq.write_table(pa.table({"sent_us": [3]}), tmp_path / "uncommitted.parquet")
    arrivals = Arrivals()
    reader = threading.Thread(target=delta_stamps, args=(str(tmp_path), arrivals), daemon=True)
    reader.start()
    time.sleep(0.3)
    assert arrivals.seen == []  # no commit yet: no row
    actions = [{"commitInfo": {"operation": "WRITE"}}, {"add": {"path": "day%3D2026-11-28/part-0.parquet"}}]
    commit = tmp_path / "_delta_log" / "00000000000000000000.json"
    commit.write_text("\n".join(json.dumps(action) for action in actions) + "\n")
    deadline = time.monotonic() + 30
    while len(arrivals.seen) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    arrivals.stop.set()
    reader.join(10)
    assert sorted(stamp for stamp, _ in arrivals.seen) == [1, 2]
