"""The harness knows every path of every built-in: a path it does not drive fails here.

The paths a stage has are read from its class (tests/parity/_paths.py); a
built-in with more than the per-record path must have generated cases, and a
method that looks like a new path must be driven or said not to be one.  The
toy stages below show both rules catching what they are for.
"""

from __future__ import annotations

import pytest

from smt.converter import Converter
from smt.plugins import default_plugins
from smt.transform import Predicate, Transform
from tests.parity import _stage_cases
from tests.parity._converter_cases import CONVERTERS, NOT_DRIVEN_CONVERTERS
from tests.parity._paths import declared_paths, undriven_paths

#: Built-ins whose paths are proven equal elsewhere, with where.
ELSEWHERE = {
    ("transform", "wasm"): "tests/host_functions: the Wasm fast and reference paths-agree property tests",
    ("transform", "ExtractNewRecordState"): (
        "tests/parity/test_compiled_debezium_parity.py: the compiled form against the per-record path on "
        "generated Debezium envelopes (the per-record path against Debezium's classes: tests/oracle)"
    ),
}


def _built_ins(kind: str):
    return [(kind, r.name, r.cls) for r in default_plugins().registrations(kind)]


ALL = _built_ins("transform") + _built_ins("predicate") + _built_ins("converter")


@pytest.mark.parametrize("kind, name, cls", ALL, ids=lambda v: v if isinstance(v, str) else "")
def test_every_path_of_every_built_in_is_driven(kind, name, cls):
    assert undriven_paths(cls, kind) == []
    if declared_paths(cls, kind) == {"record"} or (kind, name) in ELSEWHERE:
        return
    if kind == "converter":
        assert name in CONVERTERS or name in NOT_DRIVEN_CONVERTERS
    else:
        cases = _stage_cases.TRANSFORMS if kind == "transform" else _stage_cases.PREDICATES
        assert _stage_cases.family(name) in cases, f"{name} has paths {sorted(declared_paths(cls, kind))} and no cases"


class _ArrowTransform(Transform):
    """A toy stage that grew a path of a new kind."""

    def apply(self, record):
        return record

    def apply_arrow(self, table):
        return table


class _BatchPredicate(Predicate):
    def test(self, record):
        return True

    def test_batch(self, batch):
        return [True] * len(batch)


class _StreamingConverter(Converter):
    def to_connect_data(self, topic, data):
        return None, data

    def to_connect_stream(self, topic, chunks):
        return chunks


def test_a_toy_stage_with_an_undriven_path_is_caught():
    assert undriven_paths(_ArrowTransform, "transform") == [
        "_ArrowTransform.apply_arrow looks like another implementation of the stage: drive it in the parity "
        "harness (PATH_HOOKS, DRIVEN) or say in NOT_PATHS why it is not one"
    ]
    assert "to_connect_stream" in undriven_paths(_StreamingConverter, "converter")[0]


def test_a_declared_path_the_harness_does_not_drive_is_caught(monkeypatch):
    from tests.parity import _paths

    assert declared_paths(_BatchPredicate, "predicate") == {"record", "batch"}
    monkeypatch.setitem(_paths.DRIVEN, "predicate", frozenset({"record"}))
    assert undriven_paths(_BatchPredicate, "predicate") == [
        "_BatchPredicate: path 'batch' is not driven by the parity harness"
    ]
