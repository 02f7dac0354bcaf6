"""Generated cases, and the check that every path of a stage gives the record path's outcome.

Used by the harness's tests and by the mutation score (``_mutation.py``), which
runs :func:`run_all` against each mutant.
"""

from __future__ import annotations

from hypothesis import strategies as st

from smt.plugins import default_plugins
from tests.oracle._cases import WITH_SCHEMA
from tests.oracle._generation import generate
from tests.parity import _stage_cases
from tests.parity._drivers import configure, predicate_outcomes, transform_outcomes
from tests.parity._generators import SCALARS, TIMESTAMPS, batches, pools
from tests.parity._stage_cases import HEADER_NAMES

#: Generated cases (one configuration, a batch of up to 8 records) per stage.
CASES_PER_STAGE = 25
#: Fields the schema'd records have (those of the oracle's struct schemas).
SCHEMA_FIELDS = ["a", "b", "id", "card"]


def registered(kind: str, families: dict) -> list[str]:
    return sorted(r.name for r in default_plugins().registrations(kind) if _stage_cases.family(r.name) in families)


def _schema_records(records):
    """``records`` with keys and values replaced by generated structs (and their schemas)."""
    pairs = st.lists(WITH_SCHEMA, min_size=len(records) * 2, max_size=len(records) * 2)
    return pairs.map(
        lambda sv: [
            r.replace(key=sv[2 * i][1], key_schema=sv[2 * i][0], value=sv[2 * i + 1][1], value_schema=sv[2 * i + 1][0])
            for i, r in enumerate(records)
        ]
    )


def case_strategy(kind: str, name: str):
    """(configuration, records) for stage ``name``; half the transform cases carry schemas."""
    settings = (_stage_cases.TRANSFORMS if kind == "transform" else _stage_cases.PREDICATES)[_stage_cases.family(name)]

    def build(parts):
        (fields, topics), schema = parts
        if schema:
            fields = SCHEMA_FIELDS + fields[:1]
        family = _stage_cases.family(name)
        rows = batches(
            fields,
            topics,
            HEADER_NAMES,
            _stage_cases.VALUES.get(family, SCALARS),
            _stage_cases.TIMESTAMPS.get(family, TIMESTAMPS),
        )
        if schema:
            rows = rows.flatmap(_schema_records)
        return st.tuples(settings(fields, topics), rows)

    schema = st.booleans() if kind == "transform" else st.just(False)
    return st.tuples(pools(), schema).flatmap(build)


def distinct(strategy, count: int) -> list:
    """``count`` distinct examples of ``strategy`` (hypothesis repeats an example while it mutates it: those
    repeats test nothing new), drawn from twice as many."""
    unique: dict[str, object] = {}
    for example in generate(strategy, 2 * count):
        unique.setdefault(repr(example), example)
    return list(unique.values())[:count]


def cases(kind: str, name: str, count: int = CASES_PER_STAGE) -> list:
    return distinct(case_strategy(kind, name), count)


def differences(kind: str, name: str, drawn: list) -> tuple[list[str], set[str]]:
    """Every case where a path of ``name`` differs from its record path (as sentences), and the paths run."""
    problems, ran, _ = run_stage(kind, name, drawn)
    return problems, ran


def run_stage(kind: str, name: str, drawn: list) -> tuple[list[str], set[str], list[str]]:
    """(differences between paths, the paths run, and the per-record outcome of each case as text).

    The last is the reference the mutation score compares a mutant with: the unmutated per-record
    outcomes are what the Kafka oracle (tests/oracle) holds to Kafka's own answers.
    """
    problems, ran, reference = [], set(), []
    for props, records in drawn:
        try:
            stage = configure(kind, name, props)
        except Exception as exc:  # a drawn configuration the stage refuses: its message is the outcome
            ran.add("refused config")
            reference.append(f"refused: {type(exc).__name__}: {exc}")
            continue
        outcomes = (transform_outcomes if kind == "transform" else predicate_outcomes)(stage, records)
        ran.update(outcomes)
        expected = outcomes["record"]
        # What the stage declares it reads and changes decides which columns the pipeline moves: part of it.
        declared = (stage.input_fields(), getattr(stage, "changed_fields", lambda: None)())
        reference.append(f"{sorted(declared[0] or ())} {sorted(declared[1] or ())} {expected!r}")
        for path, outcome in outcomes.items():
            if outcome != expected:
                problems.append(f"{name} {props}: path '{path}' gives {outcome!r}, per record {expected!r}")
    return problems, ran, reference
