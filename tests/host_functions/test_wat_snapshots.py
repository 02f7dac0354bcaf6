"""The generated WAT matches its saved copies: a generator change shows as a diff in review."""

from __future__ import annotations

import difflib

import pytest

from tests.host_functions.wat_snapshots import REGENERATE, SHAPES, SNAPSHOTS, generated


def _diff(saved: str, now: str, name: str) -> str:
    return "".join(
        difflib.unified_diff(
            saved.splitlines(keepends=True), now.splitlines(keepends=True), f"saved/{name}", f"generated/{name}"
        )
    )


@pytest.mark.parametrize("name", sorted(generated()))
def test_the_generated_wat_is_the_saved_copy(name):
    path = SNAPSHOTS / name
    assert path.exists(), f"no saved copy of {name}: run `{REGENERATE}` and commit snapshots/{name}"
    now = generated()[name]()
    now = now if now.endswith("\n") else now + "\n"

    diff = _diff(path.read_text(encoding="utf-8"), now, name)

    assert not diff, (
        f"the generated {name} differs from its saved copy; if the change is meant, run `{REGENERATE}` "
        f"and commit the snapshots with it:\n{diff}"
    )


def test_no_saved_copy_is_left_without_a_generator():
    assert sorted(p.name for p in SNAPSHOTS.glob("*.wat")) == sorted(generated())


def test_the_sweep_covers_every_optional_part_of_a_shape():
    shapes = SHAPES.values()

    assert {False, True} == {s.entry_returns_i64 for s in shapes} == {s.has_dealloc for s in shapes}
    for flag in ("get_record", "set_record", "emits"):
        assert {False, True} == {getattr(s, flag) for s in shapes}, flag
    for column in ("key", "value", "topic", "headers", "timestamp"):
        assert {False, True} == {s.modifies(column) for s in shapes}, column


def test_the_diff_shows_the_changed_line():
    diff = _diff("(module\n  (func $a)\n)\n", "(module\n  (func $b)\n)\n", "x.wat")

    assert "-  (func $a)\n+  (func $b)\n" in diff
