"""Each built-in transform declares the record fields it may change, and changes no other.

The pipeline trusts these declarations before it runs (a Kafka sink refuses a
pipeline that can only write back into the topics it reads, see
``TransformChain.may_change``), so each is checked against what the transform
really does to a record that every field of is set.
"""

import dataclasses

import pytest

from smt.chain import TransformChain
from smt.record import Record
from tests.smt.sample_plugins import sample_plugins

RECORD = Record(
    topic="orders",
    partition=1,
    offset=5,
    timestamp=1_700_000_000_000,
    key={"id": 7},
    value={"id": 7, "card": "4111", "name": "ann", "at": 1_700_000_000_000, "meta": {"src": "web"}},
    headers=(("trace", b"t-1"), ("drop", b"x")),
)

#: (type, settings, the fields it declares)
DECLARED = [
    ("InsertField$Value", {"static.field": "via", "static.value": "smt"}, {"value"}),
    ("InsertField$Key", {"topic.field": "from"}, {"key"}),
    ("MaskField$Value", {"fields": "card"}, {"value"}),
    ("ReplaceField$Value", {"exclude": "name"}, {"value"}),
    ("Cast$Value", {"spec": "id:string"}, {"value"}),
    ("ExtractField$Key", {"field": "id"}, {"key"}),
    ("HoistField$Value", {"field": "wrapped"}, {"value"}),
    ("Flatten$Value", {}, {"value"}),
    ("TimestampConverter$Value", {"field": "at", "target.type": "string", "format": "yyyy"}, {"value"}),
    ("HeaderFrom$Value", {"fields": "name", "headers": "name", "operation": "move"}, {"value", "headers"}),
    ("ValueToKey", {"fields": "name"}, {"key"}),
    ("InsertHeader", {"header": "via", "value.literal": "smt"}, {"headers"}),
    ("DropHeaders", {"headers": "drop"}, {"headers"}),
    ("RegexRouter", {"regex": "(.*)", "replacement": "$1-out"}, {"topic"}),
    ("TimestampRouter", {}, {"topic"}),
    ("Filter", {}, set()),
]  # fmt: skip

#: Record attribute -> Kafka row field, for the fields a declaration names.
_ROW_FIELD = {"timestamp_type": "timestampType"}


def chain(*stages) -> TransformChain:
    props = {"transforms": ",".join(f"t{i}" for i in range(len(stages)))}
    for i, (type_, settings) in enumerate(stages):
        props[f"transforms.t{i}.type"] = type_
        props.update({f"transforms.t{i}.{key}": value for key, value in settings.items()})
    return TransformChain.from_properties(props, plugins=sample_plugins())


@pytest.mark.parametrize("type_, settings, declared", DECLARED, ids=[row[0] for row in DECLARED])
def test_a_transform_changes_only_the_fields_it_declares(type_, settings, declared):
    transform_chain = chain((type_, settings))
    assert transform_chain.stages[0].transform.changed_fields() == declared
    changed = set()
    for out in transform_chain.apply(RECORD):
        for field in dataclasses.fields(Record):
            if field.name.endswith("_schema"):
                continue  # a schema belongs to its key or value
            if getattr(out, field.name) != getattr(RECORD, field.name):
                changed.add(_ROW_FIELD.get(field.name, field.name))
    assert changed <= declared


def test_a_chain_may_change_the_topic_only_with_a_transform_that_may():
    masking = [("MaskField$Value", {"fields": "card"}), ("InsertHeader", {"header": "h", "value.literal": "v"})]
    assert chain(*masking).may_change("topic") is False
    assert chain(*masking).may_change("headers") is True
    assert chain(*masking, ("RegexRouter", {"regex": "a", "replacement": "b"})).may_change("topic") is True
    assert TransformChain([]).may_change("topic") is False


def test_a_transform_that_declares_nothing_may_change_anything():
    assert chain(("Split", {})).stages[0].transform.changed_fields() is None
    assert chain(("Split", {})).may_change("topic") is True
