"""Planted bugs in Debezium's other transforms are caught by their Debezium oracle families: each
mutant (tests/oracle/_mutants.py, DEBEZIUM_OTHER_MUTANTS) makes its family
(tests/oracle/test_debezium_other_transforms.py) report a difference. Debezium answers each
family's cases once; each mutant is judged against them.
"""

from __future__ import annotations

import collections

import pytest

from tests.oracle import _ours
from tests.oracle._compare import SAME, Tally, judge, run_cases
from tests.oracle._debezium_other import FAMILIES
from tests.oracle._mutants import DEBEZIUM_OTHER_MUTANTS, planted
from tests.oracle.test_debezium_other_transforms import family_cases


@pytest.fixture(scope="module")
def answered(debezium) -> dict[str, tuple[list[dict], list]]:
    """Each family's cases and Debezium's answers."""
    found = {}
    for plugin in FAMILIES:
        cases = family_cases(plugin)
        found[plugin] = cases, run_cases(debezium, cases, Tally(), _ours.run)
    return found


def test_every_family_has_at_least_four_mutants_with_distinct_names():
    assert len({m.name for m in DEBEZIUM_OTHER_MUTANTS}) == len(DEBEZIUM_OTHER_MUTANTS)
    per_family = collections.Counter(plugin for m in DEBEZIUM_OTHER_MUTANTS for plugin in m.plugins)
    assert all(per_family[plugin] >= 4 for plugin in FAMILIES), per_family


@pytest.mark.parametrize("mutant", DEBEZIUM_OTHER_MUTANTS, ids=lambda m: m.name)
def test_the_debezium_oracle_reports_the_mutant(answered, mutant):
    (plugin,) = mutant.plugins
    cases, debezium = answered[plugin]
    tally = Tally()
    with planted(mutant):
        judge(cases, debezium, tally, _ours.run)
    assert set(tally.verdicts[plugin]) != {SAME}, f"{mutant.name}: every record still agrees"
