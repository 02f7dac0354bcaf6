"""Every built-in transform and predicate: each path it has gives what its per-record path gives.

Records, failures (type and message) and dead letters are compared, on cases
drawn widely (tests/parity/_generators.py), for each registered built-in
with more than one path (tests/parity/test_paths.py checks none is missing).
"""

from __future__ import annotations

import pytest

from tests.parity import _harness, _stage_cases

TRANSFORMS = _harness.registered("transform", _stage_cases.TRANSFORMS)
PREDICATES = _harness.registered("predicate", _stage_cases.PREDICATES)


@pytest.mark.parametrize("name", TRANSFORMS)
def test_every_path_of_a_transform_gives_the_per_record_outcome(name):
    problems, ran = _harness.differences("transform", name, _harness.cases("transform", name))
    assert not problems, "\n".join(problems[:3])
    assert {"record", "batch", "batch owning its maps"} <= ran


@pytest.mark.parametrize("name", PREDICATES)
def test_every_path_of_a_predicate_gives_the_per_record_outcome(name):
    problems, ran = _harness.differences("predicate", name, _harness.cases("predicate", name))
    assert not problems, "\n".join(problems[:3])
    assert {"record", "batch"} <= ran
