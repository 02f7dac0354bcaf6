"""No built-in SMT crashes on a tombstone, and each documents what it does with one."""

import pytest

from smt.data import Schema, SchemaBuilder
from smt.errors import DataError
from smt.plugins import default_plugins
from tests.smt.transforms._helpers import conf, make_record

MINIMAL_CONFIG = {
    "ByLogicalTableRouter": {"topic.regex": "(.*)", "topic.replacement": "all-$1"},
    "Cast": {"spec": "a:int32"},
    "DropHeaders": {"headers": "h"},
    "ConfluentFilter": {"filter.condition": "$.a", "filter.type": "include"},
    "ExtractField": {"field": "a"},
    # Without skip.missing.or.null, a tombstone fails the record (tests/smt/transforms/confluent).
    "ExtractTopic": {"field": "a", "skip.missing.or.null": "true"},
    "EventRouter": {},
    "ExtractChangedRecordState": {"header.changed.name": "changed"},
    "ExtractNewRecordState": {},
    "TombstoneHandler": {"behavior": "ignore"},
    "Filter": {},
    "Flatten": {},
    "HeaderFrom": {"fields": "a", "headers": "h", "operation": "move"},
    "HeaderToValue": {"headers": "h", "fields": "f", "operation": "copy"},
    "HoistField": {"field": "a"},
    "InsertField": {"topic.field": "t", "static.field": "s", "static.value": "v"},
    "InsertHeader": {"header": "h", "value.literal": "1"},
    "MaskField": {"fields": "a"},
    "PartitionRouting": {"partition.payload.fields": "a", "partition.topic.num": 2},
    "RegexRouter": {"regex": "(.*)", "replacement": "x-$1"},
    "ReplaceField": {"exclude": "a"},
    "SetSchemaMetadata": {"schema.name": "n"},
    "TimestampConverter": {"target.type": "unix", "field": "a"},
    "TimestampRouter": {},
    "TimezoneConverter": {"converted.timezone": "+02:00"},
    "ValueToKey": {"fields": "a"},
}
STRUCT = SchemaBuilder.struct().optional().field("a", Schema.OPTIONAL_INT32_SCHEMA).build()


def registered():
    return sorted(
        {r.cls for r in default_plugins().registrations("transform") if r.cls.__module__.startswith("smt.transforms.")},
        key=lambda c: c.name,
    )


def test_every_builtin_is_covered():
    assert {cls.name.split("$")[0] for cls in registered()} == set(MINIMAL_CONFIG)


@pytest.mark.parametrize("cls", registered(), ids=lambda c: c.name)
@pytest.mark.parametrize("schema", [None, STRUCT], ids=["schemaless", "struct"])
def test_tombstone_does_not_crash(cls, schema):
    xform = conf(cls, MINIMAL_CONFIG[cls.name.split("$")[0]])
    record = make_record(None, key=None, value_schema=schema, key_schema=schema, timestamp=0)
    if cls.name == "ValueToKey":  # as in Kafka: no value to derive the key from
        with pytest.raises(DataError, match=r"for \[copying fields from value to key\], found: null"):
            xform.apply(record)
        return
    result = xform.apply(record)
    if result is not None:
        assert result.value is None or cls.name == "HoistField$Value"


@pytest.mark.parametrize("cls", registered(), ids=lambda c: c.name)
def test_tombstone_behaviour_is_documented(cls):
    assert "tombstone" in (cls.__doc__ or "").lower()
