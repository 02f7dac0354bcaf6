"""The built-in predicates, with the cases of Kafka's HasHeaderKeyTest and TopicNameMatchesTest."""

import pytest

from smt.batch import RecordBatch
from smt.errors import ConfigError
from smt.plugin import PluginContext
from smt.plugins import default_plugins
from smt.predicates.has_header_key import HasHeaderKey
from smt.predicates.record_is_tombstone import RecordIsTombstone
from smt.predicates.topic_name_matches import TopicNameMatches
from smt.record import Record


def configured(cls, props):
    predicate = cls()
    predicate.configure(props, PluginContext(alias="p", prefix="predicates.p."))
    return predicate


def with_headers(*names):
    return Record(topic="t", headers=tuple((name, None) for name in names))


@pytest.mark.parametrize(
    "cls, props, message",
    [
        (HasHeaderKey, {}, "predicates.p.name: is required"),
        (HasHeaderKey, {"name": ""}, "predicates.p.name: String must be non-empty"),
        (TopicNameMatches, {}, "predicates.p.pattern: is required"),
        (TopicNameMatches, {"pattern": ""}, "predicates.p.pattern: String must be non-empty"),
        (TopicNameMatches, {"pattern": "["}, "predicates.p.pattern: .*Invalid regex"),
        (TopicNameMatches, {"pattern": "*"}, "predicates.p.pattern: .*Invalid regex"),
    ],
)
def test_config_errors(cls, props, message):
    with pytest.raises(ConfigError, match=message):
        configured(cls, props)


HAS_HEADER_CASES = [
    (("foo",), True),
    (("foo", "bar"), True),
    (("bar", "foo", "bar", "foo"), True),
    (("bar",), False),
    (("bar", "bar"), False),
    ((), False),
]


@pytest.mark.parametrize("names, expected", HAS_HEADER_CASES)
def test_has_header_key(names, expected):
    assert configured(HasHeaderKey, {"name": "foo"}).test(with_headers(*names)) is expected


TOPIC_CASES = [
    ("my-prefix-", True),
    ("my-prefix-foo", True),
    ("x-my-prefix-", False),
    ("x-my-prefix-foo", False),
    ("your-prefix-", False),
    ("your-prefix-foo", False),
    (None, False),
]


@pytest.mark.parametrize("topic, expected", TOPIC_CASES)
def test_topic_name_matches(topic, expected):
    assert configured(TopicNameMatches, {"pattern": "my-prefix-.*"}).test(Record(topic=topic)) is expected


def test_record_is_tombstone():
    predicate = configured(RecordIsTombstone, {})
    assert predicate.test(Record(value=None)) is True
    assert predicate.test(Record(value={"a": 1})) is False


def test_batches_agree_with_per_record_tests():
    records = [
        Record(topic=t, headers=tuple((n, None) for n in names), value=None if i % 2 else b"x")
        for i, ((names, _), (t, _)) in enumerate(zip(HAS_HEADER_CASES, TOPIC_CASES))
    ]
    batch = RecordBatch.from_records(records)
    for predicate in (
        configured(HasHeaderKey, {"name": "foo"}),
        configured(TopicNameMatches, {"pattern": "my-prefix-.*"}),
        configured(RecordIsTombstone, {}),
    ):
        assert predicate.test_batch(batch) == [predicate.test(r) for r in records]


def test_tombstone_batch_on_arrow_values():
    import pyarrow as pa

    arrow = pa.RecordBatch.from_pydict({"value": pa.array([b"a", None, b"c"], pa.binary())})
    assert configured(RecordIsTombstone, {}).test_batch(RecordBatch.from_arrow(arrow)) == [False, True, False]


@pytest.mark.parametrize(
    "name",
    [
        "TopicNameMatches",
        "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
        "recordistombstone",
    ],
)
def test_registered_by_short_and_kafka_names(name):
    assert default_plugins().get("predicate", name) is not None


def test_has_header_key_on_arrow_headers():
    import pyarrow as pa

    from smt.batch import KAFKA_ARROW_SCHEMA

    header_type = KAFKA_ARROW_SCHEMA.field("headers").type
    rows = [
        [{"key": "foo", "value": b"1"}],
        [],
        None,
        [{"key": "bar", "value": None}, {"key": "foo", "value": None}],
        [{"key": "bar", "value": b"x"}],
    ]
    arrow = pa.RecordBatch.from_pydict({"headers": pa.array(rows, header_type)})
    batch = RecordBatch.from_arrow(arrow)
    assert configured(HasHeaderKey, {"name": "foo"}).test_batch(batch) == [True, False, False, True, False]
    assert batch.is_arrow("headers")  # the predicate did not convert the column


@pytest.mark.parametrize(
    "cls, props", [(HasHeaderKey, {"name": "foo"}), (TopicNameMatches, {"pattern": "a.*"}), (RecordIsTombstone, {})]
)
def test_predicates_pickle_by_configuration(cls, props):
    import pickle

    predicate = pickle.loads(pickle.dumps(configured(cls, props)))
    assert predicate.context.prefix == "predicates.p."
    record = Record(topic="abc", headers=(("foo", 1),))
    assert predicate.test(record) is True
