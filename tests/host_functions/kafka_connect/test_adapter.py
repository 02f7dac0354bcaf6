"""The generated adapter: it compiles for every guest shape, and ADAPTER.md documents all it uses."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
import wasmtime

from host_functions.inspect import readable_columns
from host_functions.kafka_connect import layout as A
from host_functions.kafka_connect.abi import ABI_FUNCTIONS, PYTHON_SERVED
from host_functions.kafka_connect.adapter import adapter_wat
from host_functions.kafka_connect.guest import inspect_guest
from tests.host_functions import wat_guests as g

ADAPTER_DOC = Path(A.__file__).with_name("ADAPTER.md").read_text(encoding="utf-8")


def _engine() -> wasmtime.Engine:
    config = wasmtime.Config()
    config.wasm_multi_memory = True
    config.wasm_bulk_memory = True
    config.epoch_interruption = True
    return wasmtime.Engine(config)


def _guest_module(imports: tuple[str, ...], returns_i64: bool, dealloc: bool) -> str:
    body = '(func (export "entry") (result i64) (i64.const 0))' if returns_i64 else '(func (export "entry"))'
    module = g.guest(body, imports=imports)
    return module if dealloc else module.replace('(func (export "dealloc") (param i32 i32))', "")


_FUNCTIONS = [f.name for f in ABI_FUNCTIONS if f.name not in PYTHON_SERVED]
#: every host function alone and all of them, with each entry signature, with and without dealloc
SHAPES = [
    ((name,), returns_i64, dealloc)
    for name, (returns_i64, dealloc) in zip(
        _FUNCTIONS, itertools.cycle([(False, True), (True, False), (True, True), (False, False)])
    )
]
SHAPES += [(tuple(_FUNCTIONS), returns_i64, dealloc) for returns_i64 in (False, True) for dealloc in (False, True)]


@pytest.fixture(scope="module")
def engine():
    return _engine()


@pytest.mark.parametrize(
    ("imports", "returns_i64", "dealloc"),
    SHAPES,
    ids=["+".join(s[0]) if len(s[0]) == 1 else f"all-{s[1]}-{s[2]}" for s in SHAPES],
)
def test_the_adapter_compiles_for_the_shape_with_nothing_and_everything_staged(engine, imports, returns_i64, dealloc):
    module = wasmtime.Module(engine, _guest_module(imports, returns_i64, dealloc))
    guest = inspect_guest(
        module, label="g.wasm", function_name="entry", plugin_functions={}, wasi=False, key_prefix="transforms.x."
    )

    for staged in (frozenset(), readable_columns(guest)):
        shape = guest.adapter_shape(staged)
        adapter = wasmtime.Module(engine, adapter_wat(shape))
        assert {e.name for e in adapter.exports} >= {"run", "in", "ch", *A.OUTPUT_MEMORIES, *A.TABLE_MEMORIES}
        assert shape.get_record == ("get_record" in imports)


def test_the_layout_document_names_every_constant_status_and_global():
    constants = [name for name in vars(A) if re.fullmatch(r"[CDS]_[A-Z_]+", name)]
    globals_ = set(
        re.findall(
            r"\(global \$(\w+)",
            adapter_wat(A.AdapterShape(True, True, True, True, True, True, True, frozenset(A.INPUT_BITS), True, True)),
        )
    )
    memories = set(
        re.findall(
            r"\(memory \$(\w+)",
            adapter_wat(A.AdapterShape(True, True, True, True, True, True, True, frozenset(A.INPUT_BITS), True, True)),
        )
    )

    assert [c for c in constants if f"`{c}`" not in ADAPTER_DOC] == []
    assert [s.name for s in A.Status if f"`{s.name}`" not in ADAPTER_DOC] == []
    assert sorted(g for g in globals_ if f"${g}" not in ADAPTER_DOC) == []
    assert sorted(m for m in memories | {"g"} if f"`${m}`" not in ADAPTER_DOC) == []


def test_the_layout_document_gives_each_offset_and_status_code_its_value():
    for name in [n for n in vars(A) if re.fullmatch(r"[CDS]_[A-Z_]+", n)]:
        assert re.search(rf"^\| {getattr(A, name)} \| `{name}`", ADAPTER_DOC, re.M), name
    for status in A.Status:
        assert re.search(rf"^\| {status.value} \| `{status.name}` \|", ADAPTER_DOC, re.M), status.name
    assert f"{A.VALIDITY_UNREADABLE} `VALIDITY_UNREADABLE`" in ADAPTER_DOC


def test_the_layout_document_lists_every_module_of_the_generator():
    generator = sorted(
        path.name for path in Path(A.__file__).parent.glob("*.py") if "adapter" in path.name or path is A
    )

    assert [name for name in generator if f"`{name}`" not in ADAPTER_DOC] == []
