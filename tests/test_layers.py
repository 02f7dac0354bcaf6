"""The import rule of :mod:`smt.layers`, checked: layers point down, private modules stay
private, and no import cycle anywhere in smt/, converters/, connectors/ and host_functions/.

The rule and the top layer are declared once, in ``smt/layers.py``; this reads
every import of the four packages from the source with :mod:`ast` (module
level, inside a function, under ``TYPE_CHECKING``: a lazy import is still a
dependency), so a test fails on the line that breaks the rule.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from smt.layers import TOP_LAYER

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_PACKAGES = ("converters", "connectors", "host_functions")
PACKAGES = ("smt", *PLUGIN_PACKAGES)

#: Imports that still break the rule, each with why it stays (or the work that removes it).
#: ``test_known_exceptions_are_still_needed`` fails once one is gone: then delete it here.
_WHITE_BOX_BASELINE = "the baseline rebuilds the codec per record from its parts, on purpose"
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("smt.benchmarks.converters", "converters.avro._mapping"): _WHITE_BOX_BASELINE,
    ("smt.benchmarks.converters", "converters.json._codec"): _WHITE_BOX_BASELINE,
    ("smt.benchmarks.converters", "converters.json._reader"): _WHITE_BOX_BASELINE,
    ("smt.benchmarks.converters", "converters.json._writer"): _WHITE_BOX_BASELINE,
    ("smt.benchmarks.converters", "converters.json._schema_json"): _WHITE_BOX_BASELINE,
}


@dataclasses.dataclass(frozen=True)
class Import:
    importer: str  # module name, e.g. "smt.chain"
    target: str  # the module imported, e.g. "smt.transforms._codegen"
    where: str  # file:line, relative to the root

    def __str__(self) -> str:
        return f"{self.where}: {self.importer} imports {self.target}"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(name: str, root: Path) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imports_of(path: Path, root: Path) -> list[Import]:
    """Every import of our packages in ``path``, resolved to the module it loads."""
    importer = module_name(path, root)
    package = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            # ``from pkg import _module`` imports the module, ``from pkg import name`` the package.
            targets = [f"{base}.{a.name}" for a in node.names if is_module(f"{base}.{a.name}", root)] or [base]
        else:
            continue
        where = f"{path.relative_to(root)}:{node.lineno}"
        found += [Import(importer, t, where) for t in targets if t.split(".")[0] in PACKAGES]
    return found


def all_imports(root: Path) -> list[Import]:
    return [
        imp for package in PACKAGES for path in sorted((root / package).rglob("*.py")) for imp in imports_of(path, root)
    ]


def layer(module: str) -> str:
    top = module.split(".")[0]
    if top != "smt":
        return top
    return "top" if any(module == t or module.startswith(t + ".") for t in TOP_LAYER) else "core"


def layer_violation(imp: Import) -> str | None:
    """Why ``imp`` points the wrong way, or None."""
    source, target = layer(imp.importer), layer(imp.target)
    if source == "core" and target != "core":
        return f"the core imports the {target} layer"
    if source in PLUGIN_PACKAGES and target not in ("core", source):
        return f"{source}/ imports the {target} layer"
    return None


def private_violation(imp: Import) -> str | None:
    """Why ``imp`` reaches into another package's private module, or None."""
    parts = imp.target.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            owner = ".".join(parts[:index])
            if imp.importer != owner and not imp.importer.startswith(owner + "."):
                return f"{'.'.join(parts[: index + 1])} is private to {owner}"
            return None
    return None


def violations(imports: list[Import], rule) -> list[str]:
    return [
        f"{imp} ({why})" for imp in imports if (why := rule(imp)) and (imp.importer, imp.target) not in KNOWN_EXCEPTIONS
    ]


def import_graph(imports: list[Import], root: Path) -> dict[str, dict[str, Import]]:
    """Module -> module it imports -> the first line that imports it (modules of the packages only)."""
    graph: dict[str, dict[str, Import]] = {}
    for imp in imports:
        if imp.target != imp.importer and is_module(imp.target, root):
            edges = graph.setdefault(imp.importer, {})
            graph.setdefault(imp.target, {})
            if imp.target not in edges or _line(imp) < _line(edges[imp.target]):
                edges[imp.target] = imp
    return graph


def _line(imp: Import) -> tuple[str, int]:
    path, _, line = imp.where.rpartition(":")
    return path, int(line)


def strongly_connected(graph: dict[str, dict[str, Import]]) -> list[list[str]]:
    """The sets of modules that import each other, around a cycle (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph[start])))]
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    members = []
                    while not members or members[-1] != module:
                        members.append(stack.pop())
                        on_stack.discard(members[-1])
                    if len(members) > 1:
                        found.append(sorted(members))
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                on_stack.add(target)
                work.append((target, iter(sorted(graph[target]))))
            elif target in on_stack:
                low[module] = min(low[module], index[target])
    return sorted(found)


def shortest_cycle(graph: dict[str, dict[str, Import]], members: list[str]) -> list[Import]:
    """The imports of a shortest cycle through the first of ``members`` (a strongly connected set)."""
    first, inside = members[0], set(members)
    came_from: dict[str, Import] = {}
    frontier = [first]
    while frontier:
        following = []
        for module in frontier:
            for target, imp in sorted(graph[module].items()):
                if target == first:
                    path = [imp]
                    while path[0].importer != first:
                        path.insert(0, came_from[path[0].importer])
                    return path
                if target in inside and target not in came_from:
                    came_from[target] = imp
                    following.append(target)
        frontier = following
    raise AssertionError(f"{members} is not strongly connected")


def cycle_reports(imports: list[Import], root: Path) -> list[str]:
    """One report per set of modules that import each other: a cycle as a path, then each import's line."""
    graph = import_graph(imports, root)
    reports = []
    for members in strongly_connected(graph):
        cycle = shortest_cycle(graph, members)
        path = " -> ".join([cycle[0].importer, *(imp.target for imp in cycle)])
        lines = "".join(f"\n    {imp}" for imp in cycle)
        also = f"\n  (modules in this knot: {', '.join(members)})" if len(members) > len(cycle) else ""
        reports.append(f"import cycle {path}{lines}{also}")
    return reports


@pytest.fixture(scope="module")
def project_imports() -> list[Import]:
    return all_imports(ROOT)


def test_layers_point_down(project_imports):
    found = violations(project_imports, layer_violation)
    assert not found, "imports against the layers:\n" + "\n".join(found)


def test_private_modules_stay_in_their_package(project_imports):
    found = violations(project_imports, private_violation)
    assert not found, "imports of another package's private module:\n" + "\n".join(found)


def test_no_module_imports_one_that_imports_it_back(project_imports):
    found = cycle_reports(project_imports, ROOT)
    assert not found, "\n".join(found)


def test_known_exceptions_are_still_needed(project_imports):
    seen = {(imp.importer, imp.target) for imp in project_imports if layer_violation(imp) or private_violation(imp)}
    assert sorted(set(KNOWN_EXCEPTIONS) - seen) == []


def test_the_top_layer_is_what_its_names_say():
    assert [name for name in TOP_LAYER if not is_module(name, ROOT)] == []


# The checker itself, on a tree of its own: it must see what breaks the rule.


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checker_finds_every_kind_of_breach(tmp_path):
    write_tree(
        tmp_path,
        {
            "smt/__init__.py": "",
            "smt/chain.py": "def fused():\n    from connectors.file import formats\n",
            "smt/plugin.py": "from smt.pipeline import runner\n",
            "smt/pipeline/__init__.py": "",
            "smt/pipeline/runner.py": "import connectors.file\nfrom smt.transforms import _codegen\n",
            "smt/transforms/__init__.py": "",
            "smt/transforms/_codegen.py": "from . import _variant\nfrom ._variant import Part\n",
            "smt/transforms/_variant.py": "Part = 1\n",
            "connectors/__init__.py": "",
            "connectors/file/__init__.py": "from .formats import FORMATS\n",
            "connectors/file/formats.py": "import converters\nFORMATS = {}\n",
            "converters/__init__.py": "",
            "host_functions/__init__.py": "from smt.pipeline.runner import run\n",
        },
    )
    imports = all_imports(tmp_path)
    layered = [(i.where, i.target, layer_violation(i)) for i in imports if layer_violation(i)]
    private = [(i.importer, i.target, private_violation(i)) for i in imports if private_violation(i)]
    assert sorted(layered) == [
        ("connectors/file/formats.py:1", "converters", "connectors/ imports the converters layer"),
        ("host_functions/__init__.py:1", "smt.pipeline.runner", "host_functions/ imports the top layer"),
        ("smt/chain.py:2", "connectors.file.formats", "the core imports the connectors layer"),
        ("smt/plugin.py:1", "smt.pipeline.runner", "the core imports the top layer"),
    ]
    assert private == [
        ("smt.pipeline.runner", "smt.transforms._codegen", "smt.transforms._codegen is private to smt.transforms"),
    ]


def test_the_checker_names_each_import_of_a_planted_cycle(tmp_path):
    write_tree(
        tmp_path,
        {
            "smt/__init__.py": "",
            "smt/chain.py": "from smt import builder\n\n\ndef build():\n    from smt import stage\n",
            "smt/builder.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from smt.chain import Chain\n",
            "smt/stage.py": "import smt.chain\n",
            "smt/record.py": "import smt.chain\n",
            "connectors/__init__.py": "",
            "converters/__init__.py": "",
            "host_functions/__init__.py": "",
            "host_functions/a.py": "from . import b\n",
            "host_functions/b.py": "from .a import A\n",
        },
    )
    assert cycle_reports(all_imports(tmp_path), tmp_path) == [
        "import cycle host_functions.a -> host_functions.b -> host_functions.a"
        "\n    host_functions/a.py:1: host_functions.a imports host_functions.b"
        "\n    host_functions/b.py:1: host_functions.b imports host_functions.a",
        "import cycle smt.builder -> smt.chain -> smt.builder"
        "\n    smt/builder.py:4: smt.builder imports smt.chain"
        "\n    smt/chain.py:1: smt.chain imports smt.builder"
        "\n  (modules in this knot: smt.builder, smt.chain, smt.stage)",
    ]
