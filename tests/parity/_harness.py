"""Generated cases, and the check that every path of a stage gives the record path's outcome.

Used by the harness's tests and by the mutation score (``_mutation.py``), which
runs :func:`run_all` against each mutant.
"""

from __future__ import annotations

from hypothesis import strategies as st

from smt.compiled import CompiledValue, NotCompilable
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


def _schema_records(records, parts=("key", "value")):
    """``records`` with the ``parts`` (keys and values, or keys only) replaced by generated structs (and
    their schemas)."""

    def with_structs(record, key, value):
        changes = {"key": key[1], "key_schema": key[0]}
        if "value" in parts:
            changes.update(value=value[1], value_schema=value[0])
        return record.replace(**changes)

    pairs = st.lists(WITH_SCHEMA, min_size=len(records) * 2, max_size=len(records) * 2)
    return pairs.map(lambda sv: [with_structs(r, sv[2 * i], sv[2 * i + 1]) for i, r in enumerate(records)])


def _some_key_structs(records):
    """``records`` with some of their keys (one at a drawn row, others drawn) replaced by generated structs
    (and their schemas)."""
    n = len(records)
    chosen = st.tuples(st.integers(0, n - 1), st.lists(st.booleans(), min_size=n, max_size=n))
    return st.tuples(chosen, _schema_records(records, ("key",))).map(
        lambda t: [with_key if i == t[0][0] or t[0][1][i] else r for i, (r, with_key) in enumerate(zip(records, t[1]))]
    )


def case_strategy(kind: str, name: str, key_structs: bool = False):
    """(configuration, records) for stage ``name``; half the transform cases carry schemas.  With
    ``key_structs``, schemaless values (maps nested deeper) beside keys of which some are structs with schemas."""
    settings = (_stage_cases.TRANSFORMS if kind == "transform" else _stage_cases.PREDICATES)[_stage_cases.family(name)]

    def build(parts):
        (fields, topics), schema = parts
        if schema:
            fields = SCHEMA_FIELDS + fields[:1]
        family = _stage_cases.family(name)
        scalars = _stage_cases.VALUES.get(family, SCALARS)
        if schema == "key structs":  # and values of maps nested deeper (two or three levels), along nested paths
            scalars = st.one_of(scalars, st.dictionaries(st.sampled_from(fields), scalars, max_size=3))
        rows = batches(fields, topics, HEADER_NAMES, scalars, _stage_cases.TIMESTAMPS.get(family, TIMESTAMPS))
        if schema == "key structs":
            rows = rows.flatmap(_some_key_structs)
        elif schema:
            rows = rows.flatmap(_schema_records)
        return st.tuples(settings(fields, topics), rows)

    if key_structs:
        schema = st.just("key structs")
    else:
        schema = st.booleans() if kind == "transform" else st.just(False)
    return st.tuples(pools(), schema).flatmap(build)


def distinct(strategy, count: int) -> list:
    """``count`` distinct examples of ``strategy`` (hypothesis repeats an example while it mutates it: those
    repeats test nothing new), drawn from twice as many."""
    unique: dict[str, object] = {}
    for example in generate(strategy, 2 * count):
        unique.setdefault(repr(example), example)
    return list(unique.values())[:count]


#: A transform's cases whose keys are partly structs, beside schemaless values: one per this many cases.
KEY_STRUCT_SHARE = 5


def cases(kind: str, name: str, count: int = CASES_PER_STAGE) -> list:
    """``count`` cases, and for a transform a fifth as many more with key structs beside schemaless values
    (drawn apart: widening the cases adds to the draws and leaves the others as they were)."""
    drawn = distinct(case_strategy(kind, name), count)
    if kind == "transform":
        drawn += distinct(case_strategy(kind, name, key_structs=True), max(1, count // KEY_STRUCT_SHARE))
    return drawn


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
        compiled = _compiled_forms(stage, records) if kind == "transform" else []
        reference.append(f"{sorted(declared[0] or ())} {sorted(declared[1] or ())} {expected!r} {compiled}")
        for path, outcome in outcomes.items():
            if outcome != expected:
                problems.append(f"{name} {props}: path '{path}' gives {outcome!r}, per record {expected!r}")
    return problems, ran, reference


class _NeedsSpark(Exception):
    """Raised by :data:`_NO_SPARK` when a compiled form, past its refusals, starts to build Spark columns."""


class _NoSpark:
    """Stands for ``pyspark.sql.functions``: the compiled form's refusal logic runs without Spark."""

    def __getattr__(self, name):
        raise _NeedsSpark(name)


_NO_SPARK = _NoSpark()


def _compiled_forms(stage, records) -> list[str]:
    """The compiled form ``stage``'s class declares, and what ``stage.compile_value`` makes of each struct
    value schema among ``records``, without Spark: its refusal (``NotCompilable``'s message), the columns
    it gives (column stand-ins: the input field names), or that it goes on to build Spark columns.  The
    Spark run of the compiled form is test_compiled_parity.py's."""
    if not hasattr(stage, "compile_value"):
        return []
    forms, seen = [f"declared: {type(stage).compiled_form()}"], []
    for record in records:
        schema = record.value_schema
        if schema is None or schema.type.value != "struct" or schema in seen:
            continue
        seen.append(schema)
        try:
            value = stage.compile_value(CompiledValue(schema, {f.name: f.name for f in schema.fields}), _NO_SPARK)
        except NotCompilable as exc:
            forms.append(f"refused: {exc}")
        except _NeedsSpark:
            forms.append("compiles")
        else:
            forms.append(
                f"compiles to {value.schema!r} {[(f.name, f.schema) for f in value.schema.fields]} {value.columns}"
            )
    return forms
