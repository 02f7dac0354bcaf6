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


def _schemaed_records() -> list:
    """Struct values with schemas, a tombstone, a schemaless map and a value that fails MaskField(replacement)."""
    from smt.data import Schema, SchemaBuilder, Struct

    schema = (
        SchemaBuilder.struct()
        .field("a", Schema.INT32_SCHEMA)
        .field("b", Schema.OPTIONAL_STRING_SCHEMA)
        .field("c", Schema.OPTIONAL_BOOLEAN_SCHEMA)
        .build()
    )
    flagged = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).field("b", Schema.BOOLEAN_SCHEMA).build()
    return [
        make_record(Struct(schema).put("a", 1).put("b", "x").put("c", True), value_schema=schema, offset=0),
        make_record(None, value_schema=schema, offset=1),
        make_record({"a": 2, "b": "y"}, offset=2),
        make_record(Struct(flagged).put("a", 3).put("b", False), value_schema=flagged, offset=3),
    ]


SCHEMAED_CASES = [
    (MaskFieldValue, {"fields": "a,b"}),
    (MaskFieldValue, {"fields": "a,b", "replacement": "9"}),
    (MaskFieldValue, {"fields": "a", "field.syntax.version": "V2"}),
    (ReplaceFieldValue, {"exclude": "b", "renames": "a:z"}),
    (ReplaceFieldValue, {"include": "a,c"}),
    (ReplaceFieldValue, {"exclude": "b", "field.syntax.version": "V2"}),
]


def test_values_with_schemas_take_the_column_path_with_the_record_paths_results():
    class Collecting:
        def __init__(self):
            self.rows = []

        def fail(self, row, exc):
            self.rows.append((row, str(exc)))

    records = _schemaed_records()
    failures = 0
    for cls, props in SCHEMAED_CASES:
        transform = conf(cls, props)
        expected, expected_failures = [], []
        for row, record in enumerate(records):
            try:
                expected.append(transform.apply(record))
            except Exception as exc:
                expected_failures.append((row, str(exc)))
        errors = Collecting()
        out = transform.apply_batch(RecordBatch.from_records(records), errors)
        assert (out.records(), errors.rows) == (expected, expected_failures), (cls.name, props)
        failures += len(errors.rows)
    assert failures == 1  # the boolean masked with a replacement, row 3
