"""The converter benchmark runs and compares like with like (no timing is asserted here)."""

import pytest

from smt.benchmarks import converters as converter_benchmark

pytestmark = pytest.mark.benchmark


def test_benchmark_runs_on_a_small_scale():
    comparisons = converter_benchmark.run(scale=0.005)
    assert [c.name for c in comparisons] == ["json schemaless rt", "json envelope rt", "avro rt"]
    assert all(c.ours.records == c.baseline.records == 100 for c in comparisons)


def test_sample_records_are_about_200_bytes_of_json():
    import json

    sizes = [len(json.dumps(o, separators=(",", ":"))) for o in converter_benchmark.sample_orders(50)]
    assert 170 <= sum(sizes) / len(sizes) <= 230
