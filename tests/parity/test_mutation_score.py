"""The parity harness kills at least 90% of a fixed sample of behaviour-changing mutants (tests/parity/_mutation.py).

The score is printed (``-s`` or CI's output of the terminal summary shows it).
"""

from __future__ import annotations

from tests.parity import _mutation

#: Surviving mutants judged equivalent (no input can tell them from the original), and why.
EQUIVALENT: dict[str, str] = {}

MINIMUM = 0.90


def test_the_harness_kills_the_sampled_mutants(capsys):
    score = _mutation.run()
    report = score.report(EQUIVALENT)
    with capsys.disabled():
        print("\n" + report)
    assert score.rate(EQUIVALENT) >= MINIMUM, report


def test_mutants_are_sampled_from_every_target_module():
    paths = {m.path for m in _mutation.all_mutants()}
    assert {
        "smt/transforms/regex_router.py",
        "smt/predicates/topic_name_matches.py",
        "converters/json/converter.py",
    } <= paths
    chosen = _mutation.sample(size=5)
    assert [m for m, _ in chosen] == [m for m, _ in _mutation.sample(size=5)]  # the same sample every run
    assert all(code != (_mutation.ROOT / m.path).read_text() for m, code in chosen)
