"""Planted bugs in our ExtractNewRecordState are caught by the Debezium oracle: each mutant
(tests/oracle/_mutants.py, DEBEZIUM_MUTANTS) makes it report unexplained differences, and no
difference it causes is excused by a deviation. Debezium answers the oracle's cases once (the
same cases as tests/oracle/test_debezium_oracle.py); each mutant is judged against them.
"""

from __future__ import annotations

import pytest

from tests.oracle import _ours
from tests.oracle._compare import SAME, UNEXPLAINED, Tally, judge, run_cases
from tests.oracle._mutants import DEBEZIUM_MUTANTS, planted
from tests.oracle.test_debezium_oracle import debezium_cases


@pytest.fixture(scope="module")
def answered(debezium) -> tuple[list[dict], list, list[str]]:
    """The cases, Debezium's answers, and the verdicts of our unmutated code."""
    cases = debezium_cases()
    tally = Tally()
    return cases, run_cases(debezium, cases, tally, _ours.run), tally.items


def test_there_are_at_least_fifteen_debezium_mutants_with_distinct_names():
    assert len({m.name for m in DEBEZIUM_MUTANTS}) == len(DEBEZIUM_MUTANTS) >= 15


@pytest.mark.parametrize("mutant", DEBEZIUM_MUTANTS, ids=lambda m: m.name)
def test_the_debezium_oracle_reports_the_mutant(answered, mutant):
    cases, debezium, before = answered
    tally = Tally()
    with planted(mutant):
        judge(cases, debezium, tally, _ours.run)
    excused = [(b, a) for b, a in zip(before, tally.items) if a != b and a not in (UNEXPLAINED, SAME)]
    assert tally.items.count(UNEXPLAINED) > 0, f"{mutant.name}: no unexplained difference"
    assert not excused, f"{mutant.name}: differences excused by deviations: {excused[:5]}"
