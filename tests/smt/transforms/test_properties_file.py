"""A Kafka Connect properties file, as users bring it, gives the same records per record and per batch."""

import pytest

from smt.batch import RecordBatch
from smt.chain import TransformChain
from smt.errors import StageError
from tests.smt.transforms._helpers import make_record

KAFKA_PROPERTIES = {
    "transforms": "insert, mask ,route,dropTombstones",
    "transforms.insert.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.insert.static.field": " source ",
    "transforms.insert.static.value": "kafka",
    "transforms.insert.topic.field": "topic!",
    "transforms.mask.type": "org.apache.kafka.connect.transforms.MaskField$Value",
    "transforms.mask.fields": " ssn , card ",
    "transforms.mask.replace.null.with.default": "TRUE",
    "transforms.mask.predicate": "isOrders",
    "transforms.route.type": "org.apache.kafka.connect.transforms.TimestampRouter",
    "transforms.route.topic.format": "${topic}_${timestamp}",
    "transforms.route.timestamp.format": "yyyy-MM",
    "transforms.dropTombstones.type": "org.apache.kafka.connect.transforms.Filter",
    "transforms.dropTombstones.predicate": "isTombstone",
    "predicates": "isTombstone,isOrders",
    "predicates.isTombstone.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
    "predicates.isOrders.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
    "predicates.isOrders.pattern": "orders.*",
}

RECORDS = [
    make_record({"ssn": "123", "card": "4111", "n": 1}, topic="orders", timestamp=1483425001864),
    make_record({"ssn": "123", "n": 2}, topic="users", timestamp=1483425001864),
    make_record(None, topic="orders", timestamp=1483425001864),
]
EXPECTED = [
    ("orders_2017-01", {"ssn": "", "card": "", "n": 1, "source": "kafka", "topic": "orders"}),
    ("users_2017-01", {"ssn": "123", "n": 2, "source": "kafka", "topic": "users"}),
]


def test_per_record():
    chain = TransformChain.from_properties(KAFKA_PROPERTIES)
    out = [r for record in RECORDS for r in chain.apply(record)]
    assert [(r.topic, r.value) for r in out] == EXPECTED


def test_per_batch():
    chain = TransformChain.from_properties(KAFKA_PROPERTIES)
    out = chain.apply_batch(RecordBatch.from_records(RECORDS))
    assert list(zip(out.topic, out.value)) == EXPECTED and out.origin == [0, 1]


def test_short_names_work_too():
    props = {
        k: v.replace("org.apache.kafka.connect.transforms.predicates.", "").replace(
            "org.apache.kafka.connect.transforms.", ""
        )
        for k, v in KAFKA_PROPERTIES.items()
    }
    chain = TransformChain.from_properties(props)
    assert [(r.topic, r.value) for rec in RECORDS for r in chain.apply(rec)] == EXPECTED


def test_data_error_names_the_transform():
    chain = TransformChain.from_properties(KAFKA_PROPERTIES)
    with pytest.raises(
        StageError,
        match=r"InsertField.*Only Map objects supported in absence of schema for \[field insertion\], found: str",
    ):
        chain.apply(make_record("text", topic="orders", timestamp=0))
