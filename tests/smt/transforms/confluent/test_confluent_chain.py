"""Confluent's Filter and ExtractTopic in a chain built from properties, as real connector files write them."""

import pytest

from smt.batch import RecordBatch
from smt.chain import TransformChain
from smt.errors import StageError
from tests.smt.transforms._helpers import make_record

PROPERTIES = {
    "transforms": "keepOnly,route",
    "transforms.keepOnly.type": "io.confluent.connect.transforms.Filter$Value",
    "transforms.keepOnly.filter.condition": "$[?(@.category == 'keep')]",
    "transforms.keepOnly.filter.type": "include",
    "transforms.keepOnly.missing.or.null.behavior": "exclude",
    "transforms.route.type": "io.confluent.connect.transforms.ExtractTopic$Value",
    "transforms.route.field": "$.meta.topic",
    "transforms.route.field.format": "JSON_PATH",
}
RECORDS = [
    make_record({"category": "keep", "meta": {"topic": "kept-a"}}, offset=0),
    make_record({"category": "drop", "meta": {"topic": "dropped"}}, offset=1),
    make_record({"other": 1}, offset=2),
    make_record({"category": "keep", "meta": {"topic": "kept-b"}}, offset=3),
]
EXPECTED = ["kept-a", "kept-b"]


def test_per_record():
    chain = TransformChain.from_properties(PROPERTIES)
    assert [r.topic for record in RECORDS for r in chain.apply(record)] == EXPECTED


def test_per_batch():
    out = TransformChain.from_properties(PROPERTIES).apply_batch(RecordBatch.from_records(RECORDS))
    assert list(out.topic) == EXPECTED and out.origin == [0, 3]


def test_a_record_without_a_topic_name_fails_naming_the_transform_and_the_record():
    chain = TransformChain.from_properties(PROPERTIES)
    with pytest.raises(StageError, match=r"ExtractTopic \(transforms\.route\).*offset 5.*no member 'meta'"):
        chain.apply(make_record({"category": "keep"}, offset=5))
