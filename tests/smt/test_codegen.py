"""The compiled column loops: configured names are embedded as literals, never as code."""

import linecache

import pytest

from smt.batch import RecordBatch
from smt.codegen import compile_map_loop, literal
from smt.transforms.mask_field import MaskFieldValue
from smt.transforms.replace_field import ReplaceFieldValue
from tests.smt.transforms._helpers import RaisingErrors, conf, make_record


def test_literal_accepts_plain_data_only():
    assert literal("a'b\"c\n") == repr("a'b\"c\n")
    with pytest.raises(TypeError, match="cannot embed list"):
        literal(["x"])


def test_loop_reports_failing_rows_and_keeps_none():
    loop = compile_map_loop("demo", ["u['n'] = 1 / value['d']"], {})
    failures = []

    def fallback(value, row):
        raise ValueError(f"not a map: {value!r}")

    out, failed = loop([{"d": 1}, None, {"d": 0}, "x"], lambda row, exc: failures.append((row, type(exc))), fallback)
    assert out == [{"d": 1, "n": 1.0}, None, None, None]
    assert failed == [2, 3] and failures == [(2, ZeroDivisionError), (3, ValueError)]


@pytest.mark.parametrize("name", ["x'); import os; os.system('true'); ('", "a\nb", "`q`", "\\"])
def test_hostile_field_names_are_just_names(name):
    value = {name: "secret", "other": 1}
    out = conf(MaskFieldValue, {"fields": name}).apply_batch(
        RecordBatch.from_records([make_record(value)]), RaisingErrors()
    )
    assert out.value == [{name: "", "other": 1}]
    out = conf(ReplaceFieldValue, {"exclude": name}).apply(make_record(value))
    assert out.value == {"other": 1}


def test_loops_pause_the_collector_and_restore_it():
    import gc

    from smt.codegen import gc_paused

    seen = []
    loop = compile_map_loop("probe", ["u['gc'] = isenabled()"], {"isenabled": gc.isenabled})
    assert gc.isenabled()
    out, _ = loop([{}], lambda row, exc: None, None)
    assert out == [{"gc": False}] and gc.isenabled()
    with pytest.raises(RuntimeError):
        with gc_paused():
            seen.append(gc.isenabled())
            raise RuntimeError("boom")
    assert seen == [False] and gc.isenabled()


def test_in_place_form_updates_maps_and_the_list_and_leaves_failed_rows_alone():
    loop = compile_map_loop("demo", ["n = 1 / value['d']", "u['n'] = n"], {})
    failures = []

    def fallback(value, row):
        if value == "x":
            raise ValueError("not a map")
        return {"from": value}

    first, bad = {"d": 1}, {"d": 0}
    values = [first, None, bad, "x", 7]
    failed = loop.in_place(values, lambda row, exc: failures.append((row, type(exc))), fallback)
    assert values == [{"d": 1, "n": 1.0}, None, {"d": 0}, "x", {"from": 7}]
    assert values[0] is first and values[2] is bad
    assert failed == [2, 3] and failures == [(2, ZeroDivisionError), (3, ValueError)]


def test_run_map_loop_copies_unowned_maps_and_updates_owned_ones():
    from smt.codegen import run_map_loop

    loop = compile_map_loop("demo", ["u['n'] = 1"], {})
    batch = RecordBatch.from_records([make_record({"a": 1})])
    original = batch.value[0]
    copied = run_map_loop(loop, batch, "value", (), RaisingErrors(), None)
    assert copied.value == [{"a": 1, "n": 1}] and original == {"a": 1} and copied.owns("value")
    updated = run_map_loop(loop, copied, "value", (), RaisingErrors(), None)
    assert updated.value[0] is copied.value[0] and updated.owns("value")


def test_tracebacks_show_the_generated_source_line():
    import traceback

    loop = compile_map_loop("shows_source", ["u['n'] = 1 / value['d']"], {})
    failures = []
    loop([{"d": 0}], lambda row, exc: failures.append(exc), None)
    frames = traceback.extract_tb(failures[0].__traceback__)
    assert frames[-1].filename.startswith("<smt.codegen shows_source ")
    assert frames[-1].line == "u['n'] = 1 / value['d']"
    in_place = loop.in_place
    in_place([{"d": 0}], lambda row, exc: failures.append(exc), None)
    assert traceback.extract_tb(failures[1].__traceback__)[-1].line == "u['n'] = 1 / value['d']"
    assert "def shows_source" in "".join(linecache.getlines(loop.__code__.co_filename))
    linecache.checkcache()  # entries without a file on disk survive the check
    assert linecache.getlines(loop.__code__.co_filename)
