"""The Extism benchmark row compares like with like (no timing is asserted here)."""

import pytest

from smt.benchmarks import wasm, wasm_extism

pytestmark = [pytest.mark.benchmark, pytest.mark.guest_toolchain("rust", "go")]


def test_ours_and_the_naive_host_give_the_same_values():
    values = wasm._values(500)
    ours, naive_host = wasm_extism.paths(values, batch_rows=128)

    expected = [value.upper() for value in values.to_pylist()]
    assert ours() == expected
    assert naive_host() == expected


def test_the_row_runs_on_a_small_scale():
    (comparison,) = wasm_extism.run(wasm._values(300), batch_rows=100)
    assert comparison.ours.records == comparison.baseline.records == 300
    assert comparison.target_rate == wasm_extism.TARGET_RECORDS_PER_SECOND == 100_000
