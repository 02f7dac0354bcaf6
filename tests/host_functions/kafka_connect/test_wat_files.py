"""The adapter's WebAssembly text lives in ``.wat`` files: each is rendered and validated by wabt.

wabt's ``wat2wasm`` (a tool apart from wasmtime, which runs the adapters) checks every adapter the
snapshot shapes generate, each ``.wat`` fragment included, and the Extism kernel.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from host_functions.kafka_connect.adapter import adapter_wat
from host_functions.kafka_connect.wat_template import WAT_DIR, holes, render
from tests.host_functions.wat_snapshots import SHAPES

EXTISM_KERNEL = Path(__file__).resolve().parents[3] / "host_functions" / "extism" / "kernel.wat"


def _wat2wasm(text: str, tmp_path: Path) -> subprocess.CompletedProcess:
    source = tmp_path / "module.wat"
    source.write_text(text)
    return subprocess.run(
        ["wat2wasm", "--enable-all", str(source), "-o", str(tmp_path / "module.wasm")],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.guest_toolchain("wabt")
@pytest.mark.parametrize("shape", sorted(SHAPES), ids=str)
def test_every_generated_adapter_is_valid_webassembly(shape, tmp_path):
    done = _wat2wasm(adapter_wat(SHAPES[shape]), tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.guest_toolchain("wabt")
def test_the_extism_kernel_is_valid_webassembly(tmp_path):
    done = _wat2wasm(EXTISM_KERNEL.read_text(), tmp_path)
    assert done.returncode == 0, done.stderr


def test_the_snapshot_shapes_render_every_fragment():
    """So the validation above covers each file: some shape reads the record as JSON, some sets it."""
    assert any(shape.get_record for shape in SHAPES.values())
    assert any(shape.set_record for shape in SHAPES.values())
    assert {path.stem for path in WAT_DIR.glob("*.wat")} == {"get_record", "set_record"}


@pytest.mark.guest_toolchain("wabt")
def test_a_planted_error_in_a_fragment_is_caught(tmp_path):
    """The check can fail: the get_record fragment with one instruction misspelt does not assemble."""
    shape = next(shape for shape in SHAPES.values() if shape.get_record)
    broken = adapter_wat(shape).replace("(i32.load8_u $in (local.get $p))", "(i32.load8_x $in (local.get $p))", 1)
    assert broken != adapter_wat(shape)
    done = _wat2wasm(broken, tmp_path)
    assert done.returncode != 0 and "i32.load8_x" in done.stderr


def test_render_refuses_a_hole_left_unfilled_or_a_value_no_hole_takes():
    assert holes("set_record") == {"check_guest", "SET_TOPIC", "SET_MASK"}
    with pytest.raises(ValueError, match=r"wat/set_record\.wat: holes not filled: \['SET_MASK'\]; values for no hole: "
                       r"\['SET_MASKS'\]"):  # fmt: skip
        render("set_record", check_guest="", SET_TOPIC=8, SET_MASKS=7)
