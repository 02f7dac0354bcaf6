"""host_functions' packages keep to their own: no ABI reaches into another's private modules, the runtime
imports no ABI, and the adapter's layout loads no Wasm stack.  (No import cycle anywhere in the tree:
``tests/test_layers.py``.)"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import host_functions

PACKAGE = Path(host_functions.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(tree: ast.AST, modules: set[str]) -> set[str]:
    """The modules the code imports, ``if TYPE_CHECKING:`` blocks left out.

    ``from package import name`` imports the submodule ``package.name`` when there is one, else
    ``package``; a package's own ``__init__`` running first is not counted (it is how packages load).
    """
    imported: set[str] = set()
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported |= {
                f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                for alias in node.names
            }
        elif isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        imported |= _runtime_imports(node, modules)
    return imported


def _import_graph() -> dict[str, set[str]]:
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    return {
        name: {
            imported
            for imported in _runtime_imports(ast.parse(path.read_text(encoding="utf-8")), set(paths))
            if imported in paths and imported != name
        }
        for name, path in paths.items()
    }


def test_the_adapter_layout_imports_only_the_abi_table():
    graph = _import_graph()

    assert graph["host_functions.kafka_connect.layout"] == {"host_functions.kafka_connect.abi"}
    assert graph["host_functions.kafka_connect.abi"] == set()


def _package(module: str) -> str:
    return module.rpartition(".")[0]


def _private_imports_across_packages(graph: dict[str, set[str]]) -> list[str]:
    """``importer -> imported`` where ``imported`` is private (``_name``) to a package other than the importer's."""
    return [
        f"{importer} -> {imported}"
        for importer, imports in sorted(graph.items())
        for imported in sorted(imports)
        if imported.rpartition(".")[2].startswith("_")
        and not imported.endswith("__init__")
        and _package(imported) not in (importer, _package(importer))  # a package's __init__ is its own
    ]


def test_the_private_import_check_finds_an_abi_reaching_into_another():
    graph = {"host_functions.redpanda._runner": {"host_functions.kafka_connect._fast_instance"}}

    assert _private_imports_across_packages(graph) == [
        "host_functions.redpanda._runner -> host_functions.kafka_connect._fast_instance"
    ]


def test_no_module_imports_a_private_module_of_another_package():
    assert _private_imports_across_packages(_import_graph()) == []


def test_the_runtime_imports_no_abi():
    abis = ("kafka_connect", "extism", "proxy_wasm", "redpanda")
    graph = _import_graph()

    assert {
        f"{importer} -> {imported}"
        for importer, imports in graph.items()
        if importer.startswith("host_functions.runtime")
        for imported in imports
        if imported.split(".")[1] in abis
    } == set()


def test_the_adapter_generator_loads_neither_wasmtime_nor_pyarrow_nor_the_transform():
    heavy = ("wasmtime", "pyarrow", "numpy", "host_functions.transform", "host_functions.kafka_connect._fast_instance")
    code = (
        "import sys, host_functions.kafka_connect.adapter, host_functions.kafka_connect._adapter_shim\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout

    assert loaded.strip() == "[]"


def test_the_package_names_its_public_api_and_nothing_else():
    assert host_functions.WasmTransform.__module__ == "host_functions.transform"
    assert host_functions.ABI_FUNCTIONS[0].name
    assert set(host_functions.__all__) <= set(dir(host_functions))
    with pytest.raises(AttributeError, match="module 'host_functions' has no attribute 'NoSuchName'"):
        host_functions.NoSuchName  # noqa: B018 - the lookup is what is tested
