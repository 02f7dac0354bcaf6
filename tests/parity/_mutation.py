"""A mutation score for the parity harness: cosmic-ray's mutants of the built-ins, sampled, each run in a fork.

cosmic-ray (its core operators) lists every mutation of the modules in
:data:`TARGETS`, and a fixed share of them is sampled, mutants that change
nothing Python runs (the same AST) set aside.

The draw is stable under unrelated edits.  A mutant is known by its identity,
not by its line number or by cosmic-ray's occurrence index in the module (both
move when anything above it changes): the module's path, the operator, the
qualified name of the enclosing function or class (``<module>`` at top level),
the text of the mutated line (stripped), and the mutant's rank among the same
operator's mutations of that same text in that same function.  A mutant is
sampled when the SHA-256 of :data:`SEED` and its identity, read as a fraction
of 2**256, falls below :data:`RATE`: each mutant is in or out on its own, so an
edit elsewhere in a module adds or drops only the mutants of the lines it
touches and leaves the rest of the sample alone.  The harness's
cases are generated once, in this process, before any target module is
imported; each mutant then runs in a forked child that drops the project's
modules imported since, loads the mutated source in place of its module, and
runs the harness (every transform, predicate and the JSON converter, every
path).  A mutant is killed when two paths disagree, when a per-record outcome
differs from the unmutated code's (the outcomes the Kafka oracle holds to
Kafka's), or when it raises or hangs.  ``python -m tests.parity._mutation``
prints the report; ``test_mutation_score.py`` runs it in the suite.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib
import importlib.abc
import importlib.util
import os
import pickle
import select
import signal
import sys
import time
from pathlib import Path

import cosmic_ray.plugins
from cosmic_ray.ast import ast_nodes, get_ast
from cosmic_ray.mutating import mutate_code

ROOT = Path(__file__).resolve().parents[2]
#: The modules mutated: the Kafka transforms, the predicates, the JSON converter.  Left out: the Debezium
#: and Confluent transforms (subpackages the harness has no cases for) and the compiled forms' modules
#: (``compiled*.py``, ``_compiled*.py``: Spark SQL, driven by the compiled parity tests, too slow to run
#: per mutant).
TARGETS = sorted(
    p
    for folder in ("smt/transforms", "smt/predicates", "converters/json")
    for p in (ROOT / folder).glob("*.py")
    if p.name not in ("__init__.py", "_plugin.py") and not p.name.lstrip("_").startswith("compiled")
)
SEED = 20261128
#: The share of mutants sampled: about 60 of the ~4,500 (see the module's docstring for the rule).
RATE = 0.018
#: Cases per stage in each mutant's run (fewer than the harness's own tests: the run is repeated per mutant).
CASES_PER_STAGE = 20
#: Families whose special values (Cast's clamps and wraps) or settings
#: (the JSON converter's six) need more draws to be met in a mutant's run.
MORE_CASES = {"Cast": 60, "json": 40}
MUTANT_TIMEOUT_S = 20
_PROJECT = ("smt", "converters", "connectors", "host_functions", "tests")
#: Project modules a child keeps: the core below every stage, and this module.
_KEEP = (
    "smt", "smt.data", "smt.record", "smt.errors", "smt.batch", "smt.config", "smt.row_layout", "smt.plugin",
    "smt.transform", "tests", "tests.parity", "tests.parity._mutation",
)  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Mutant:
    path: str  # relative to the repository
    operator: str
    occurrence: int  # cosmic-ray's index of the mutation in the module: applies it, moves with edits
    line: int
    scope: str  # the enclosing function's or class's qualified name, or "<module>"
    text: str  # the mutated line, stripped
    rank: int  # among the operator's mutations of this text in this scope

    @property
    def identity(self) -> str:
        """What the draw and :data:`EQUIVALENT` know the mutant by: nothing that moves when other lines do."""
        return f"{self.path} {self.scope} {self.operator.removeprefix('core/')}#{self.rank}: {self.text}"

    def __str__(self) -> str:
        return (
            f"{self.path}:{self.line} {self.operator.removeprefix('core/')} in {self.scope}: {self.text!r}#{self.rank}"
        )

    def drawn(self, seed: int = SEED, rate: float = RATE) -> bool:
        digest = hashlib.sha256(f"{seed}\0{self.identity}".encode()).digest()
        return int.from_bytes(digest) < rate * 2**256


def _scope(leaf) -> str:
    names, node = [], leaf.parent
    while node is not None:
        if node.type in ("funcdef", "classdef"):
            names.append(node.name.value)
        node = node.parent
    return ".".join(reversed(names)) or "<module>"


def all_mutants() -> list[Mutant]:
    """Every mutation cosmic-ray's core operators (those without arguments) make in :data:`TARGETS`."""
    return [mutant for path in TARGETS for mutant in mutants_of(str(path.relative_to(ROOT)), path.read_text())]


def mutants_of(path: str, source: str) -> list[Mutant]:
    """Every mutation the core operators make in ``source`` (the module at ``path``)."""
    found = []
    lines = source.splitlines()
    nodes = list(ast_nodes(get_ast(source)))
    for name in sorted(cosmic_ray.plugins.operator_names()):
        cls = cosmic_ray.plugins.get_operator(name)
        if cls.arguments():
            continue
        operator = cls()
        positions = [(node, pos) for node in nodes for pos in operator.mutation_positions(node)]
        ranks: dict[tuple[str, str], int] = {}
        for occurrence, (node, (start, _end)) in enumerate(positions):
            scope, text = _scope(node), lines[start[0] - 1].strip()
            rank = ranks[scope, text] = ranks.get((scope, text), -1) + 1
            found.append(Mutant(path, name, occurrence, start[0], scope, text, rank))
    return found


def mutated_source(mutant: Mutant) -> str | None:
    """The module's source with ``mutant`` applied; None when it changes nothing Python runs."""
    original = (ROOT / mutant.path).read_text()
    code = mutate_code(original, cosmic_ray.plugins.get_operator(mutant.operator)(), mutant.occurrence)
    if code is None:
        return None
    try:
        if _runnable(code) == _runnable(original):
            return None
    except SyntaxError:
        return None
    return code


class _WithoutAnnotations(ast.NodeTransformer):
    """Drops annotations and docstrings: with ``from __future__ import annotations`` they run nothing."""

    def visit_arg(self, node):
        node.annotation = None
        return node

    def visit_FunctionDef(self, node):
        node.returns = None
        return self._without_docstring(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        return self._without_docstring(node)

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        return ast.Assign([node.target], node.value) if node.value is not None else ast.Pass()

    def _without_docstring(self, node):
        self.generic_visit(node)
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            node.body = body[1:] or [ast.Pass()]
        return node


def _runnable(code: str) -> str:
    return ast.dump(_WithoutAnnotations().visit(ast.parse(code)))


def sample(seed: int = SEED, rate: float = RATE) -> list[tuple[Mutant, str]]:
    """The mutants drawn (their identity's hash below ``rate``) that change the code, with their sources."""
    chosen = []
    for mutant in all_mutants():
        if mutant.drawn(seed, rate):
            code = mutated_source(mutant)
            if code is not None:
                chosen.append((mutant, code))
    return chosen


# --- running the harness ------------------------------------------------------------------------


def _generate_cases() -> dict:
    from tests.parity import _converter_cases, _harness, _stage_cases

    cases = {}
    for kind, families in (("transform", _stage_cases.TRANSFORMS), ("predicate", _stage_cases.PREDICATES)):
        for name in _harness.registered(kind, families):
            count = MORE_CASES.get(_stage_cases.family(name), CASES_PER_STAGE)
            cases[(kind, name)] = _harness.cases(kind, name, count)
    cases[("converter", "json")] = _converter_cases.cases("json", MORE_CASES["json"])
    return cases


def _run_harness(cases: dict) -> tuple[list[str], dict[str, str]]:
    """(differences between paths, a digest of each stage's per-record outcomes)."""
    _converter_cases = importlib.import_module("tests.parity._converter_cases")
    _harness = importlib.import_module("tests.parity._harness")
    problems, digests = [], {}
    for (kind, name), drawn in cases.items():
        if kind == "converter":
            found, _, reference = _converter_cases.run_converter(name, drawn)
        else:
            found, _, reference = _harness.run_stage(kind, name, drawn)
        problems += found
        digests[name] = hashlib.sha256("\n".join(reference).encode()).hexdigest()
    return problems, digests


class _MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports one module from the mutated source instead of its file."""

    def __init__(self, name: str, path: Path, source: str) -> None:
        self.name, self.path, self.source = name, path, source

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        is_package = self.path.name == "__init__.py"
        return importlib.util.spec_from_file_location(
            fullname, self.path, loader=self, submodule_search_locations=[str(self.path.parent)] if is_package else None
        )

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(compile(self.source, str(self.path), "exec"), module.__dict__)


def _module_name(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def _in_child(keep: set[str], cases: dict, mutant: Mutant | None, source: str | None) -> dict:
    for name in [n for n in sys.modules if n.split(".")[0] in _PROJECT and n not in keep]:
        del sys.modules[name]
        parent, _, child = name.rpartition(".")
        if parent in keep and getattr(sys.modules[parent], child, None) is not None:
            delattr(sys.modules[parent], child)  # else ``from parent import child`` finds the old module
    if mutant is not None:
        sys.meta_path.insert(0, _MutantFinder(_module_name(mutant.path), ROOT / mutant.path, source))
    signal.alarm(MUTANT_TIMEOUT_S)
    try:
        problems, digests = _run_harness(cases)
    except BaseException as exc:  # noqa: BLE001 - a mutant that breaks the harness is killed by it
        return {"error": f"{type(exc).__name__}: {exc}"[:300]}
    finally:
        signal.alarm(0)
    return {"problems": problems[:2], "digests": digests}


def _forked(keep: set[str], cases: dict, mutant: Mutant | None = None, source: str | None = None) -> dict:
    return _answers([_start(keep, cases, mutant, source)])[0]


def _start(keep: set[str], cases: dict, mutant: Mutant | None = None, source: str | None = None) -> tuple[int, int]:
    """A forked child running the harness (against ``mutant``): its pid and the pipe its answer comes on."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, send the result, leave without running the parent's exit handlers
        os.close(read_end)
        try:
            result = _in_child(keep, cases, mutant, source)
        except BaseException as exc:  # noqa: BLE001
            result = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        with os.fdopen(write_end, "wb") as out:
            pickle.dump(result, out)
        os._exit(0)
    os.close(write_end)
    return pid, read_end


def _answers(children: list[tuple[int, int]]) -> list[dict]:
    """The answers of children (:func:`_start`) running side by side, in their order; one that has not
    answered after its time is killed and answers an error."""
    chunks: dict[int, list[bytes]] = {fd: [] for _, fd in children}
    waiting, deadline = set(chunks), time.monotonic() + MUTANT_TIMEOUT_S + 10
    while waiting and time.monotonic() < deadline:
        ready, _, _ = select.select(sorted(waiting), [], [], 1.0)
        for fd in ready:
            chunk = os.read(fd, 1 << 20)
            if chunk:
                chunks[fd].append(chunk)
            else:
                waiting.discard(fd)
    answers = []
    for pid, fd in children:
        if fd in waiting:
            os.kill(pid, signal.SIGKILL)
        os.close(fd)
        os.waitpid(pid, 0)
        try:
            answers.append(pickle.loads(b"".join(chunks[fd])))
        except Exception:  # noqa: BLE001 - the child died without answering
            answers.append({"error": "the run died or hung"})
    return answers


@dataclasses.dataclass
class Score:
    killed: list = dataclasses.field(default_factory=list)  # (mutant, how)
    survived: list = dataclasses.field(default_factory=list)
    seconds: float = 0.0

    @property
    def sampled(self) -> int:
        return len(self.killed) + len(self.survived)

    def report(self, equivalent: dict[str, str]) -> str:
        judged = [m for m in self.survived if m.identity in equivalent]
        changing = self.sampled - len(judged)
        lines = [
            f"mutation score: {len(self.killed)} killed / {self.sampled} sampled mutants "
            f"({len(judged)} surviving judged equivalent): {len(self.killed)}/{changing} = "
            f"{100 * len(self.killed) / max(changing, 1):.1f}% of behaviour-changing mutants, "
            f"in {self.seconds:.0f} s",
        ]
        by_how: dict[str, int] = {}
        for _, how in self.killed:
            by_how[how] = by_how.get(how, 0) + 1
        lines.append("killed by: " + ", ".join(f"{how} {n}" for how, n in sorted(by_how.items())))
        for mutant in self.survived:
            lines.append(
                f"survived: {mutant}"
                + (
                    f" (equivalent: {equivalent[mutant.identity]})"
                    if mutant in judged
                    else f"\n  identity: {mutant.identity}"
                )
            )
        return "\n".join(lines)

    def rate(self, equivalent: dict[str, str]) -> float:
        changing = self.sampled - sum(1 for m in self.survived if m.identity in equivalent)
        return len(self.killed) / max(changing, 1)


def run(seed: int = SEED, rate: float = RATE) -> Score:
    """Sample the mutants, run each against the harness, and score them."""
    started = time.monotonic()
    chosen = sample(seed, rate)
    for module in _KEEP:
        importlib.import_module(module)
    # The core modules the cases' objects come from (records, Connect data, errors) stay; every other
    # project module is dropped in each child and imported afresh, the mutated one from its mutant.
    keep = {n for n in sys.modules if n in _KEEP or n.startswith("smt.data.")}
    targets = {_module_name(m.path) for m, _ in chosen}
    assert not targets & keep, f"modules imported before the snapshot would escape their mutants: {targets & keep}"
    cases = _generate_cases()
    baseline = _forked(keep, cases)
    again = _forked(keep, cases)
    if "error" in baseline or baseline["problems"] or baseline != again:
        raise AssertionError(f"the unmutated harness must pass and be repeatable: {baseline} / {again}")
    score = Score()
    # One child per core at a time: each runs the harness alone, in the same time as one after another.
    side_by_side = max(1, len(os.sched_getaffinity(0)))
    results = []
    for first in range(0, len(chosen), side_by_side):
        group = chosen[first : first + side_by_side]
        results += _answers([_start(keep, cases, mutant, source) for mutant, source in group])
    for (mutant, _), result in zip(chosen, results):
        if "error" in result:
            score.killed.append((mutant, "error"))
        elif result["problems"]:
            score.killed.append((mutant, "paths disagree"))
        elif result["digests"] != baseline["digests"]:
            score.killed.append((mutant, "outcome changed"))
        else:
            score.survived.append(mutant)
    score.seconds = time.monotonic() - started
    return score


if __name__ == "__main__":
    from tests.parity.test_mutation_score import EQUIVALENT

    print(run().report(EQUIVALENT))
