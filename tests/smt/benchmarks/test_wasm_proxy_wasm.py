"""The proxy-wasm row of ``smt bench wasm`` runs, and both hosts give the filter's same output (timing is not checked)."""

import pytest

from smt.benchmarks import wasm_proxy_wasm
from smt.benchmarks.wasm import _values

pytestmark = [pytest.mark.benchmark, pytest.mark.guest_toolchain("rust")]


def test_the_proxy_wasm_benchmark_runs_both_hosts_on_the_same_records():
    comparison = wasm_proxy_wasm.standalone(_values(2_000), 500)  # raises when the two hosts' outputs differ
    assert comparison.ours.records == 2_000
    assert comparison.baseline.records == 100
    assert comparison.name.startswith("proxy-wasm to_upper (Rust SDK), standalone")
