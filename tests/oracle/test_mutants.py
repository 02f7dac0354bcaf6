"""Planted bugs are caught: each mutant of our code (tests/oracle/_mutants.py) makes the oracle
report unexplained differences, and no difference it causes is excused by a deviation.

Each mutant runs the oracle's own cases for the plugins that reach the changed code (the same
cases as tests/oracle/test_oracle.py: same strategies, counts and seed); Kafka answers them once.
"""

from __future__ import annotations

import pytest

from tests.oracle import _cases, _ours
from tests.oracle._compare import SAME, UNEXPLAINED, Tally, judge, run_cases
from tests.oracle._generation import generate, scaled
from tests.oracle._mutants import MUTANTS, planted
from tests.oracle.test_oracle import (
    CONFIGS_PER_CONVERTER,
    CONFIGS_PER_PREDICATE,
    CONFIGS_PER_TRANSFORM,
    TIMESTAMP_CASES,
)


def _cases_for(plugin: str, pools: dict) -> list[dict]:
    if plugin.endswith(" over times"):
        return generate(_cases.timestamp_case(plugin.split("$")[1].split()[0]), scaled(TIMESTAMP_CASES))
    if plugin in _cases.PREDICATES:
        return generate(_cases.predicate_case(plugin, pools), scaled(CONFIGS_PER_PREDICATE))
    if plugin in _cases.CONVERTER_CLASSES:
        return [
            case
            for direction in ("to_connect", "from_connect")
            for case in generate(_cases.converter_case(plugin, direction), scaled(CONFIGS_PER_CONVERTER))
        ]
    return generate(_cases.transform_case(plugin, pools), scaled(CONFIGS_PER_TRANSFORM))


@pytest.fixture(scope="module")
def answered(kafka_connect, record_pools) -> dict[str, tuple[list[dict], list, list[str]]]:
    """By plugin: the cases, Kafka's answers, and the verdicts of our unmutated code."""
    found = {}
    for plugin in sorted({p for mutant in MUTANTS for p in mutant.plugins}):
        cases = _cases_for(plugin, record_pools)
        tally = Tally()
        found[plugin] = (cases, run_cases(kafka_connect, cases, tally, _ours.run), tally.items)
    return found


def test_there_are_at_least_twenty_mutants_with_distinct_names():
    assert len({m.name for m in MUTANTS}) == len(MUTANTS) >= 20


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_the_oracle_reports_the_mutant(answered, mutant):
    caught, excused = 0, []
    for plugin in mutant.plugins:
        cases, kafka, before = answered[plugin]
        tally = Tally()
        with planted(mutant):
            judge(cases, kafka, tally, _ours.run)
        caught += tally.items.count(UNEXPLAINED)
        excused += [(plugin, b, a) for b, a in zip(before, tally.items) if a != b and a not in (UNEXPLAINED, SAME)]
    assert caught > 0, f"{mutant.name}: no unexplained difference"
    assert not excused, f"{mutant.name}: differences excused by deviations: {excused[:5]}"
