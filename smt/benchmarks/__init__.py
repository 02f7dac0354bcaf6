"""Benchmarks: throughput of our paths against their baselines, from one run.

Each area has a module here exposing ``run(scale: float = 1.0) ->
list[Comparison]``; ``smt bench`` runs them and prints one table.  Ratios
come from the same run on the same data, because these machines are noisy.
"""

from smt.benchmarks._common import Comparison, Measurement, measure

__all__ = ["Comparison", "Measurement", "measure"]
