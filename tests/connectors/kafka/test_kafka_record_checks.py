"""Records the Kafka producer would refuse, found per batch (no Spark, no broker)."""

from __future__ import annotations

import pickle
import re

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectors.kafka import KafkaSink, RecordTooLargeError
from connectors.kafka._record_checks import KafkaRecordChecks, serialized_sizes
from smt import RecordBatch
from smt.connector import SinkRecordError
from smt.errors import ConfigError
from smt.testing.records import make_record
from tests.connectors.kafka._helpers import configured


def sink(**configs) -> KafkaSink:
    return configured(KafkaSink, "sink", kafka_bootstrap_servers="127.0.0.1:9092", **configs)


def arrow(*records):
    return RecordBatch.from_records(records).to_arrow()


def errors(kafka_sink, *records):
    """``(row, exception class name, message)`` for each record the sink refuses."""
    return [(row, type(exc).__name__, str(exc)) for row, exc in kafka_sink.record_errors(arrow(*records))]


# Kafka's estimate: 61 bytes of batch overhead + 21 of record overhead, then each
# of key, value, header name and header value after its zig-zag varint length
# (1 byte up to 63 bytes, 2 up to 8191, 3 up to 2**20 - 1), a null as 1 byte,
# and the header count as a varint.
SIZES = [
    # (key, value, headers, bytes)
    (None, b"1", (), 82 + 1 + 2 + 1),  # 86: the figure Kafka's producer gives a 1-byte value
    (b"k" * 63, None, (), 82 + 64 + 1 + 1),
    (b"k" * 64, None, (), 82 + 66 + 1 + 1),
    (None, b"v" * 8191, (), 82 + 1 + 8193 + 1),
    (None, b"v" * 8192, (), 82 + 1 + 8195 + 1),
    (None, None, (("trace", b"abc"), ("n", None)), 82 + 1 + 1 + 1 + (6 + 4) + (2 + 1)),
    (None, b"", (("é", b""),), 82 + 1 + 1 + 1 + 3 + 1),  # a header name counts in UTF-8 bytes
]


@pytest.mark.parametrize("key, value, headers, expected", SIZES)
def test_serialized_size_is_the_kafka_producers_estimate(key, value, headers, expected):
    records = arrow(make_record(key=key, value=value, headers=headers))
    assert serialized_sizes(records).tolist() == [expected]


def test_sizes_of_a_sliced_batch_belong_to_their_own_rows():
    records = arrow(
        make_record(key=None, value=None, headers=(("a", b"1"),)),
        make_record(key=None, value=None, headers=()),
        make_record(key=None, value=None, headers=(("bb", b"22"), ("c", None))),
    ).slice(1)
    assert serialized_sizes(records).tolist() == [82 + 1 + 1 + 1, 82 + 1 + 1 + 1 + (3 + 3) + (2 + 1)]


def test_a_record_over_max_request_size_is_refused_naming_size_and_limit():
    small = make_record(key=None, value=b"v" * 900)  # 82 + 1 + 902 + 1 = 986 bytes
    large = make_record(key=None, value=b"v" * 950, offset=1)  # 1036 bytes
    assert errors(sink(kafka_max_request_size="1000"), small, large) == [
        (1, "RecordTooLargeError",
         "the record is 1036 bytes when serialized (Kafka producer's estimate: key, value and headers plus "
         "82 bytes of overhead), larger than 1000, the value of sink.kafka.max.request.size"),
    ]  # fmt: skip


def test_headers_count_towards_the_size():
    record = make_record(key=None, value=b"v" * 900, headers=(("trace", b"t" * 100),))
    assert [row for row, _, _ in errors(sink(kafka_max_request_size="1000"), record)] == [0]


def test_the_default_limit_is_kafkas_1048576_bytes():
    # A value just under 1 MiB has a 3-byte varint length.
    fits = make_record(key=None, value=b"v" * (1048576 - 82 - 1 - 3 - 1))
    too_large = make_record(key=None, value=b"v" * (1048576 - 82 - 1 - 3 - 1 + 1))
    assert [(row, name) for row, name, _ in errors(sink(), fits, too_large)] == [(1, "RecordTooLargeError")]


def test_buffer_memory_is_named_when_it_is_the_smaller_limit():
    record = make_record(key=None, value=b"v" * 600)
    [(_, _, message)] = errors(sink(kafka_max_request_size="1000", kafka_buffer_memory="500"), record)
    assert message.endswith("larger than 500, the value of sink.kafka.buffer.memory")


@pytest.mark.parametrize("topic", [None, ""])
def test_a_record_without_topic_needs_the_default_topic(topic):
    assert errors(sink(), make_record(topic="out"), make_record(topic=topic)) == [
        (1, "SinkRecordError",
         "the record has no topic and sink.topic is not set; route every record to a topic or set sink.topic"),
    ]  # fmt: skip
    assert errors(sink(topic="fallback"), make_record(topic=topic)) == []


@pytest.mark.parametrize("topic", ["bad topic", "ünicode", ".", "..", "t" * 250])
def test_an_illegal_topic_name_is_refused(topic):
    [(row, name, message)] = errors(sink(), make_record(topic=topic))
    assert (row, name) == (0, "SinkRecordError")
    assert message == (
        f"'{topic}' is not a legal Kafka topic name: 1 to 249 ASCII letters, digits, "
        "'.', '_' or '-', and not '.' or '..'"
    )


def test_legal_topic_names_pass():
    assert errors(sink(), *(make_record(topic=t) for t in ("a", "orders.v1_x-2", "t" * 249))) == []


def test_a_negative_partition_is_refused_only_when_partitions_are_kept():
    records = (make_record(partition=-1), make_record(partition=None), make_record(partition=3))
    assert errors(sink(keep_partition="true"), *records) == [
        (0, "SinkRecordError",
         "partition -1 is negative; with sink.keep.partition=true a record's partition must be null or at least 0"),
    ]  # fmt: skip
    assert errors(sink(), *records) == []


def test_a_header_without_a_name_is_refused():
    records = (make_record(headers=(("ok", b"1"),)), make_record(headers=(("ok", b"1"), (None, b"2"), (None, None))))
    assert errors(sink(), *records) == [
        (1, "SinkRecordError", "a header has a null name; Kafka headers must have a name")
    ]


def test_each_row_is_refused_once_for_its_first_reason():
    record = make_record(topic=None, value=b"v" * 2000, headers=((None, b"x"),))
    [(row, name, message)] = errors(sink(kafka_max_request_size="1000"), record)
    assert (row, name) == (0, "SinkRecordError") and message.startswith("the record has no topic")


def test_writable_records_give_no_errors():
    assert errors(sink(), make_record(), make_record(key=None, value=None, headers=(("h", None),))) == []


def test_the_refusals_are_data_errors():
    assert issubclass(RecordTooLargeError, SinkRecordError)


@pytest.mark.parametrize("key, text, reason", [
    ("max.request.size", "big", "must be a whole number of bytes, got 'big'"),
    ("buffer.memory", "-5", "must be at least 0, got -5"),
])  # fmt: skip
def test_bad_size_settings_are_named(key, text, reason):
    with pytest.raises(ConfigError, match="^" + re.escape(f"sink.kafka.{key}: {reason}") + "$"):
        sink(**{f"kafka_{key.replace('.', '_')}": text})


def test_an_illegal_default_topic_is_a_config_error():
    with pytest.raises(ConfigError, match=r"^sink\.topic: 'a b' is not a legal Kafka topic name"):
        sink(topic="a b")


def test_the_sink_pickles_with_its_checks():
    copy = pickle.loads(pickle.dumps(sink(kafka_max_request_size="1000")))
    assert [row for row, _ in copy.record_errors(arrow(make_record(value=b"v" * 2000)))] == [0]


def headers_batch(rows, headers):
    """A Kafka-layout batch whose headers column is ``headers`` as given (null lists allowed)."""
    from smt.batch import KAFKA_ARROW_SCHEMA

    arrow = RecordBatch.from_records([make_record(key=None, value=None) for _ in range(rows)]).to_arrow()
    column = pa.array(
        [None if h is None else [{"key": k, "value": v} for k, v in h] for h in headers],
        KAFKA_ARROW_SCHEMA.field("headers").type,
    )
    return arrow.set_column(arrow.schema.get_field_index("headers"), "headers", column)


def test_a_null_header_list_counts_as_no_headers():
    records = headers_batch(3, [[("a", b"1")], None, [(None, b"2")]])
    assert serialized_sizes(records).tolist() == [82 + 2 + 1 + 4, 82 + 2 + 1, 82 + 2 + 1 + 3]
    assert [row for row, _ in sink().record_errors(records)] == [2]


header = st.tuples(st.text(max_size=70), st.one_of(st.none(), st.binary(max_size=200)))
record = st.builds(
    lambda key, value, headers: (key, value, headers),
    st.one_of(st.none(), st.binary(max_size=9000)),
    st.one_of(st.none(), st.binary(max_size=300)),
    st.one_of(st.none(), st.lists(header, max_size=4)),
)


@given(st.lists(record, min_size=1, max_size=8), st.integers(min_value=0, max_value=3))
@settings(max_examples=60, deadline=None)
def test_a_record_is_refused_exactly_when_its_size_passes_the_limit(rows, start):
    """Whatever the batch (sliced, null lists, null values), the quick bound never hides a record."""
    records = headers_batch(len(rows), [h for _, _, h in rows])
    records = records.set_column(0, "key", pa.array([k for k, _, _ in rows], pa.binary()))
    records = records.set_column(1, "value", pa.array([v for _, v, _ in rows], pa.binary())).slice(
        min(start, len(rows) - 1)
    )
    sizes = serialized_sizes(records)
    limit = int(sizes.max()) - 1
    checks = KafkaRecordChecks(prefix="sink.", default_topic="out", keep_partition=False, max_request_size=limit)
    too_large = {row for row, exc in checks.record_errors(records) if isinstance(exc, RecordTooLargeError)}
    assert too_large == {row for row, size in enumerate(sizes) if size > limit}
