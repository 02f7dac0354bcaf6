"""Drawing the oracle's cases from hypothesis strategies: the same cases in every process and test order.

Hypothesis (6.131 on) sometimes draws a constant it found in the source of
the local modules loaded so far (``sys.modules``, test files excepted), and
with ``derandomize`` alone that made the cases depend on which tests ran
before: the whole suite (which imports every test module at collection)
generated other cases than ``pytest tests/oracle``, so CI failed on cases
nobody could reproduce by running the oracle alone.  :func:`generate` draws
from hypothesis's own constants only, from an explicit seed, under the
default settings profile; the hypothesis version is pinned in
``pyproject.toml`` because its choices differ between versions.

Two environment variables widen a local run without changing what CI runs:
``SMT_ORACLE_SEED`` (another integer seed: other cases) and
``SMT_ORACLE_SCALE`` (an integer factor on every case count).
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator
from unittest import mock

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants

SEED_VARIABLE = "SMT_ORACLE_SEED"
SCALE_VARIABLE = "SMT_ORACLE_SCALE"


def generation_seed() -> int:
    """The seed every case is drawn from: 0, or ``$SMT_ORACLE_SEED`` for a wider local run."""
    return _integer_variable(SEED_VARIABLE, 0)


def scaled(count: int) -> int:
    """``count`` times ``$SMT_ORACLE_SCALE`` (1 unless set)."""
    return count * _integer_variable(SCALE_VARIABLE, 1)


def _integer_variable(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {text!r}") from None


def generate(strategy, count: int) -> list[Any]:
    """``count`` examples drawn from ``strategy``: a function of the strategy, the count and the seed only."""
    drawn: list[Any] = []

    @seed(generation_seed())
    @settings(
        parent=settings.get_profile("default"),
        max_examples=count,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def collect(example):
        drawn.append(example)

    with _without_local_constants():
        collect()
    return drawn


@contextlib.contextmanager
def _without_local_constants() -> Iterator[None]:
    """Hypothesis draws no constant from the loaded modules' source while this is open.

    Its cache of permitted constants is cleared on the way in (it may hold the local ones) and
    on the way out (so that other tests get theirs back).  A hypothesis that moves these names
    fails here loudly, never silently generating other cases.
    """
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        with mock.patch.object(providers, "_get_local_constants", Constants):
            yield
    finally:
        providers.CONSTANTS_CACHE.cache.clear()
