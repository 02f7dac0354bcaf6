"""extism/KERNEL.md documents every export, memory, global, control word, status and entry kind of the kernel."""

from __future__ import annotations

import re
from pathlib import Path

import wasmtime

from host_functions.extism import _instance as K

DOC = Path(K.__file__).with_name("KERNEL.md").read_text(encoding="utf-8")
WAT = K.kernel_wat()


def test_each_export_of_the_kernel_is_documented():
    exports = [e.name for e in wasmtime.Module(wasmtime.Engine(), WAT).exports]

    assert "smt_run" in exports
    assert [name for name in exports if f"`{name}`" not in DOC] == []


def test_each_memory_and_global_is_in_the_glossary():
    names = set(re.findall(r"\((?:memory|global) \$(\w+)", WAT))

    assert {"heap", "io", "entries", "top"} <= names
    assert sorted(name for name in names if f"`${name}`" not in DOC) == []


def test_each_control_word_has_its_row_with_its_offset():
    words = {name.lstrip("_"): getattr(K, name) for name in vars(K) if re.fullmatch(r"_C_[A-Z_]+", name)}

    assert len(words) == 8
    assert [n for n, v in words.items() if not re.search(rf"^\| {v} \| `{n}` \|", DOC, re.M)] == []
    assert f"`CONTROL_BYTES` ({K._CONTROL_BYTES})" in DOC


def test_each_driver_status_and_entry_kind_has_its_row_with_its_value():
    codes = ("DONE", "OUTPUT_FULL", "INPUT_TOO_BIG", "OUTPUT", "ERROR", "BAD_OUTPUT")

    assert [n for n in codes if not re.search(rf"^\| {getattr(K, n)} \| `{n}` \|", DOC, re.M)] == []
