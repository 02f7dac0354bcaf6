"""The batch fast paths leave the records they were given alone.

(Their parity with the record paths, on generated records, is in test_batch_parity.py.)
"""

from smt.batch import RecordBatch
from smt.transforms.insert_field import InsertFieldValue
from smt.transforms.mask_field import MaskFieldValue
from smt.transforms.replace_field import ReplaceFieldValue
from tests.smt.transforms._helpers import RaisingErrors, conf, make_record

CASES = [
    (InsertFieldValue, {"topic.field": "t", "partition.field": "p", "static.field": "s", "static.value": "v"}),
    (InsertFieldValue, {"topic.field": "c.t", "field.syntax.version": "V2"}),
    (MaskFieldValue, {"fields": "a,b"}),
    (MaskFieldValue, {"fields": "a,b", "replacement": "9"}),
    (MaskFieldValue, {"fields": "c.d", "field.syntax.version": "V2"}),
    (ReplaceFieldValue, {"exclude": "b", "renames": "a:z"}),
    (ReplaceFieldValue, {"include": "a,c"}),
]


def test_batch_leaves_input_values_untouched():
    values = [{"a": 1, "b": "x"}]
    batch = RecordBatch.from_records([make_record(values[0])])
    for cls, props in CASES:
        conf(cls, props).apply_batch(batch, RaisingErrors())
    assert values == [{"a": 1, "b": "x"}] and batch.value[0] is values[0]
