"""The import rule: layers point down, and private modules stay private.

- The core (``smt/``: record, config, chain, batch, errors, the plugin
  interfaces, sources and sinks included) imports nothing from
  ``converters/``, ``connectors/`` or ``host_functions/``, nor from the layer
  on top.
- ``converters/``, ``connectors/`` and ``host_functions/`` import the core and
  their own modules only: not each other, not the top.
- The top (the pipeline runner, the Spark-session API, the CLI and its
  commands, the generated reference, benchmarks, local dev tools, the pytest
  plugin) may import all.
- A private module (``pkg/_name.py``) is imported only from inside ``pkg``.

Every import counts, at module level or inside a function: a lazy import is
still a dependency.  The rule is read from the source with :mod:`ast`, so a
test fails on the line that breaks it.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_PACKAGES = ("converters", "connectors", "host_functions")
PACKAGES = ("smt", *PLUGIN_PACKAGES)

#: The modules of ``smt/`` that sit on top of everything and may import all.
TOP = (
    "smt.__main__",
    "smt.benchmarks",
    "smt.cli",
    "smt.commands",
    "smt.local",
    "smt.pipeline",
    "smt.reference",  # documents every key, the pipeline's included
    "smt.spark",
    "smt.testing",
)

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
    return "top" if any(module == t or module.startswith(t + ".") for t in TOP) else "core"


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


@pytest.fixture(scope="module")
def project_imports() -> list[Import]:
    return all_imports(ROOT)


def test_layers_point_down(project_imports):
    found = violations(project_imports, layer_violation)
    assert not found, "imports against the layers:\n" + "\n".join(found)


def test_private_modules_stay_in_their_package(project_imports):
    found = violations(project_imports, private_violation)
    assert not found, "imports of another package's private module:\n" + "\n".join(found)


def test_known_exceptions_are_still_needed(project_imports):
    seen = {(imp.importer, imp.target) for imp in project_imports if layer_violation(imp) or private_violation(imp)}
    assert sorted(set(KNOWN_EXCEPTIONS) - seen) == []


def test_the_top_layer_is_what_its_names_say():
    assert all(is_module(name, ROOT) for name in TOP)


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
