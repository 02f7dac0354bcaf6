"""Debezium's other transforms as the oracle: generated change events, ours vs Debezium's own classes.

The same JVM as tests/oracle/test_debezium_oracle.py (the ``debezium`` fixture) runs each
family of tests/oracle/_debezium_other_cases.py through Debezium 3.6.1.Final's class and ours:
JsonConverter in, the transform, JsonConverter out; value, key, headers, topic and partition are
compared, and so are failures. These families accept no deviation: every record must agree.
"""

from __future__ import annotations

import pytest

from tests.oracle import _ours
from tests.oracle._compare import SAME, Tally, run_cases
from tests.oracle._debezium_other_cases import FAMILIES
from tests.oracle._generation import generate, scaled


def family_cases(plugin: str) -> list[dict]:
    strategy, count = FAMILIES[plugin]
    return generate(strategy, scaled(count))


@pytest.mark.parametrize("plugin", FAMILIES)
def test_the_transform_matches_debezium(debezium, plugin):
    cases = family_cases(plugin)
    tally = Tally()
    run_cases(debezium, cases, tally, _ours.run)
    print("\n" + tally.report())
    different = [d for d in tally.unexplained]
    shown = "\n".join(repr(d) for d in different[:3])
    assert set(tally.verdicts[plugin]) == {SAME}, f"{tally.verdicts[plugin]}, first differences:\n{shown}"
    assert tally.cases(plugin) == sum(len(case["records"]) for case in cases)
