"""Generated records and helpers for the batch/record parity tests of the built-ins.

Records are drawn by Hypothesis: maps with nested maps, tombstones, non-map
values, missing timestamps and partitions, repeated headers.  Draws are
derandomized, so every run checks the same cases.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from smt.plugin import PluginContext
from smt.plugins import default_plugins
from smt.record import Record
from smt.transform import Predicate, Transform

NAMES = ("a", "b", "c", "d", "z")
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=False, width=64), st.text(max_size=4)
)
MAPS = st.dictionaries(
    st.sampled_from(NAMES), st.one_of(SCALARS, st.dictionaries(st.sampled_from(NAMES), SCALARS, max_size=3)), max_size=5
)
PARTS = st.one_of(st.none(), MAPS, MAPS, MAPS, SCALARS)
HEADERS = st.lists(
    st.tuples(st.sampled_from(("h", "g", "n")), st.one_of(st.none(), st.integers(0, 9), st.text(max_size=3))),
    max_size=3,
).map(tuple)
RECORDS = st.builds(
    Record,
    topic=st.sampled_from(("orders", "orders-eu", "other", "")),
    partition=st.one_of(st.none(), st.integers(0, 5)),
    offset=st.one_of(st.none(), st.integers(0, 1000)),
    timestamp=st.one_of(st.none(), st.integers(0, 4_102_444_800_000)),
    key=PARTS,
    value=PARTS,
    headers=HEADERS,
)
BATCHES = st.lists(RECORDS, max_size=8)

GENERATED = settings(
    max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)

#: Built-ins whose batch path is tested elsewhere against their own reference (the Wasm paths-agree tests).
_ELSEWHERE = {"wasm"}


def configure_built_in(kind: str, name: str, props: dict) -> Any:
    """The registered ``kind`` plugin ``name``, configured from ``props``."""
    plugin = default_plugins().get(kind, name)()
    prefix = "transforms.t." if kind == "transform" else "predicates.p."
    plugin.configure(props, PluginContext(alias="t", prefix=prefix))
    return plugin


def own_batch_path(kind: str) -> set[str]:
    """The registered built-ins of ``kind`` that override the default batch path."""
    base, method = (Transform, "apply_batch") if kind == "transform" else (Predicate, "test_batch")
    return {
        r.name for r in default_plugins().registrations(kind) if getattr(r.cls, method) is not getattr(base, method)
    } - _ELSEWHERE
