"""Every built-in transform with a batch path of its own agrees with its record path, on generated records.

``apply_batch`` (and its in-place form, when the batch owns the column) must
give, row by row, what ``apply`` gives, fail the rows ``apply`` fails, and keep
origins.  The cases cover every registered built-in that overrides the batch
path (checked below, so a new one cannot be left out), Key and Value variants,
on records drawn by :mod:`tests.smt.batch_parity`.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given

from smt.batch import RecordBatch
from smt.record import Record
from tests.smt.batch_parity import BATCHES, GENERATED, configure_built_in, own_batch_path
from tests.smt.transforms._helpers import RaisingErrors

#: (registered name, configuration): every built-in with its own batch path, in the shapes that take
#: different paths through it (compiled loops, nested V2 paths, renames, routers, fan-out of none).
TRANSFORM_CASES = [
    (
        "InsertField$Value",
        {
            "topic.field": "t",
            "partition.field": "p",
            "offset.field": "o",
            "timestamp.field": "ts",
            "static.field": "s",
            "static.value": "v",
        },
    ),
    ("InsertField$Value", {"topic.field": "c.t", "field.syntax.version": "V2"}),
    ("InsertField$Key", {"topic.field": "t", "static.field": "s", "static.value": "v"}),
    ("MaskField$Value", {"fields": "a,b"}),
    ("MaskField$Value", {"fields": "a,b", "replacement": "9"}),
    ("MaskField$Value", {"fields": "c.d", "field.syntax.version": "V2"}),
    ("MaskField$Key", {"fields": "a"}),
    ("ReplaceField$Value", {"exclude": "b", "renames": "a:z"}),
    ("ReplaceField$Value", {"include": "a,c"}),
    ("ReplaceField$Value", {"include": "b", "renames": "b:z"}),
    ("ReplaceField$Value", {"renames": "a:b,b:a"}),
    ("ReplaceField$Value", {"renames": "a:y,b:y"}),
    ("ReplaceField$Key", {"exclude": "a"}),
    ("TimestampRouter", {"topic.format": "${topic}_${timestamp}", "timestamp.format": "yyyy-MM"}),
    ("RegexRouter", {"regex": "orders(.*)", "replacement": "all$1"}),
    ("HoistField$Value", {"field": "wrapped"}),
    ("HoistField$Key", {"field": "wrapped"}),
    ("ExtractField$Value", {"field": "a"}),
    ("ExtractField$Value", {"field": "c.d", "field.syntax.version": "V2"}),
    ("ExtractField$Key", {"field": "b"}),
    ("ValueToKey", {"fields": "a,b"}),
    ("DropHeaders", {"headers": "h,g"}),
    ("InsertHeader", {"header": "n", "value.literal": "42"}),
    ("Flatten$Value", {"delimiter": "_"}),
    ("Flatten$Key", {}),
    ("Filter", {}),
]


def test_every_built_in_transform_with_a_batch_path_has_a_case():
    assert own_batch_path("transform") == {name for name, _ in TRANSFORM_CASES}


def _per_record(transform, records, origins):
    expected, failed = [], []
    for record, origin in zip(records, origins):
        try:
            result = transform.apply(record)
        except Exception:  # the batch path must fail the same rows
            failed.append(origin)
            continue
        if isinstance(result, Record):
            expected.append((origin, result))
        elif result is not None:
            expected.extend((origin, out) for out in result)
    return expected, failed


def _batch(transform, records, origins, owned: bool):
    batch = RecordBatch.from_records(records, origins=origins)
    if owned:  # as after a converter: the batch's own fresh maps, updated in place by the compiled loops
        for column in ("key", "value"):
            batch.set_column(column, copy.deepcopy(batch.column(column)), owned=True)
    errors = RaisingErrors()
    out = transform.apply_batch(batch, errors)
    return list(zip(out.origin, out.records())), [origins[row] for row, _ in errors.failures]


@pytest.mark.parametrize("name, props", TRANSFORM_CASES, ids=lambda v: v if isinstance(v, str) else "")
@GENERATED
@given(records=BATCHES)
def test_apply_batch_equals_apply_on_generated_records(name, props, records):
    transform = configure_built_in("transform", name, props)
    origins = [100 + i for i in range(len(records))]
    untouched = copy.deepcopy(records)
    expected, expected_failed = _per_record(transform, records, origins)
    for owned in (False, True):
        assert _batch(transform, records, origins, owned) == (expected, expected_failed), f"owned={owned}"
    assert records == untouched  # neither path changes the records it was given
