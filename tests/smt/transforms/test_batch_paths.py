"""Every batch fast path gives the records the per-record path gives, keeps origins, reports bad rows."""

import pytest

from smt.batch import RecordBatch
from smt.transforms.drop_headers import DropHeaders
from smt.transforms.extract_field import ExtractFieldValue
from smt.transforms.filter import Filter
from smt.transforms.flatten import FlattenValue
from smt.transforms.hoist_field import HoistFieldValue
from smt.transforms.insert_field import InsertFieldValue
from smt.transforms.insert_header import InsertHeader
from smt.transforms.mask_field import MaskFieldValue
from smt.transforms.regex_router import RegexRouter
from smt.transforms.replace_field import ReplaceFieldValue
from smt.transforms.timestamp_router import TimestampRouter
from smt.transforms.value_to_key import ValueToKey
from tests.smt.transforms._helpers import RaisingErrors, conf, make_record

RECORDS = [
    make_record({"a": 1, "b": "x", "c": {"d": 2}}, topic="orders", timestamp=1483425001864, headers=(("h", 1),)),
    make_record(None, key={"k": 1}, topic="orders-eu", timestamp=0),
    make_record({"a": None, "b": 2.5, "c": {"d": None}}, topic="other", partition=None, timestamp=86_400_000),
    make_record("not a map", topic="orders", timestamp=5),
    make_record({"b": True}, topic="orders", timestamp=None, headers=(("h", 2), ("g", 3))),
]

CASES = [
    (InsertFieldValue, {"topic.field": "t", "partition.field": "p", "static.field": "s", "static.value": "v"}),
    (InsertFieldValue, {"topic.field": "c.t", "field.syntax.version": "V2"}),
    (MaskFieldValue, {"fields": "a,b"}),
    (MaskFieldValue, {"fields": "a,b", "replacement": "9"}),
    (MaskFieldValue, {"fields": "c.d", "field.syntax.version": "V2"}),
    (ReplaceFieldValue, {"exclude": "b", "renames": "a:z"}),
    (ReplaceFieldValue, {"include": "a,c"}),
    (ReplaceFieldValue, {"include": "b", "renames": "b:z"}),
    (ReplaceFieldValue, {"renames": "a:b,b:a"}),
    (TimestampRouter, {"topic.format": "${topic}_${timestamp}", "timestamp.format": "yyyy-MM"}),
    (RegexRouter, {"regex": "orders(.*)", "replacement": "all$1"}),
    (HoistFieldValue, {"field": "wrapped"}),
    (ExtractFieldValue, {"field": "a"}),
    (ExtractFieldValue, {"field": "c.d", "field.syntax.version": "V2"}),
    (ValueToKey, {"fields": "a,b"}),
    (DropHeaders, {"headers": "h"}),
    (InsertHeader, {"header": "n", "value.literal": "42"}),
    (FlattenValue, {"delimiter": "_"}),
    (Filter, {}),
]


def per_record(xform, records, origins):
    expected, failed = [], []
    for record, origin in zip(records, origins):
        try:
            result = xform.apply(record)
        except Exception:  # the batch path must fail the same rows
            failed.append(origin)
            continue
        if result is not None:
            expected.append((origin, result))
    return expected, failed


@pytest.mark.parametrize("cls, props", CASES, ids=lambda v: getattr(v, "name", None) or str(v))
def test_batch_equals_per_record(cls, props):
    xform = conf(cls, props)
    origins = [100 + i for i in range(len(RECORDS))]
    expected, expected_failed = per_record(xform, RECORDS, origins)
    errors = RaisingErrors()
    out = xform.apply_batch(RecordBatch.from_records(RECORDS, origins=origins), errors)
    assert [origins[row] for row, _ in errors.failures] == expected_failed
    assert list(zip(out.origin, out.records())) == expected


def test_batch_leaves_input_values_untouched():
    values = [{"a": 1, "b": "x"}]
    batch = RecordBatch.from_records([make_record(values[0])])
    for cls, props in CASES[:7]:
        conf(cls, props).apply_batch(batch, RaisingErrors())
    assert values == [{"a": 1, "b": "x"}] and batch.value[0] is values[0]
