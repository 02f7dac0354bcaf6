"""redpanda/ADAPTER.md documents every offset, status, return code, memory and global the adapter uses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from host_functions.redpanda import adapter as A

DOC_PATH = Path(A.__file__).with_name("ADAPTER.md")
DOC = DOC_PATH.read_text(encoding="utf-8")
WAT = A.adapter_wat()


def test_each_control_block_offset_has_its_row_with_its_value():
    constants = {name: getattr(A, name) for name in vars(A) if re.fullmatch(r"[CD]_[A-Z_]+", name)}

    assert constants  # the pattern still finds the layout
    assert [n for n, v in constants.items() if not re.search(rf"^\| {v} \| `{n}` \|", DOC, re.M)] == []
    assert "`CONTROL_SIZE`" in DOC


def test_each_status_and_return_code_is_documented_with_its_value():
    assert [s.name for s in A.RedpandaStatus if not re.search(rf"^\| {s.value} \| `{s.name}` \|", DOC, re.M)] == []
    for name in ("NO_ACTIVE_TRANSFORM", "INVALID_BUFFER", "INVALID_WRITE"):
        assert f"`{name}` ({getattr(A, name)}," in DOC, name


def test_each_memory_and_global_of_the_generated_adapter_is_in_the_glossary():
    memories = set(re.findall(r"\(memory \$(\w+)", WAT)) | set(
        re.findall(r"\(import \"guest\" \"memory\" \(memory \$(\w+)", WAT)
    )
    globals_ = set(re.findall(r"\(global \$(\w+)", WAT))

    assert memories >= {"g", "in", *A.OUTPUT_MEMORIES}
    assert sorted(m for m in memories if f"`${m}`" not in DOC) == []
    assert sorted(g for g in globals_ if f"`${g}`" not in DOC) == []


@pytest.mark.parametrize("dtype", [A.RECORD_META, A.HEADER_META], ids=["RECORD_META", "HEADER_META"])
def test_each_output_table_field_is_named(dtype):
    assert [field for field in dtype.names if f"`{field}`" not in DOC] == []


def test_the_modules_it_names_exist():
    named = set(re.findall(r"^\| `(\w+\.py)` \|", DOC, re.M))

    assert named and sorted(n for n in named if not DOC_PATH.with_name(n).exists()) == []
