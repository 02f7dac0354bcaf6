"""What a guest does not read costs nothing and cannot fail its record.

As in the Kafka Connect transformer, converters run only on the parts the guest reads.  The fast
path stages a column once the guest first calls its getter (the record runs again on a fresh
instance with the column staged); both paths give the same records.
"""

import pytest

from smt.batch import RecordBatch
from tests.host_functions import wat_guests as g
from tests.host_functions.conftest import PATHS, make_record, run

#: value "k" -> the value becomes the key; any other value is upper-cased.  Imports get_header,
#: get_topic and get_timestamp and never calls them.
KEY_ON_DEMAND = g.guest(
    """(func (export "key_on_demand") (local $v i64) (local $k i64)
    (call $reset)
    (local.set $v (call $get_value))
    (if (i32.and (i32.eq (call $len (local.get $v)) (i32.const 1))
                 (i32.eq (i32.load8_u (call $ptr (local.get $v))) (i32.const 107)))
      (then (local.set $k (call $get_key))
            (call $set_value (call $ptr (local.get $k)) (call $len (local.get $k)))
            (return)))
    (call $upper_in_place (call $ptr (local.get $v)) (call $len (local.get $v)))
    (call $set_value (call $ptr (local.get $v)) (call $len (local.get $v))))""",
    imports=("get_value", "set_value", "get_key", "get_header", "get_topic", "get_timestamp"),
)


@pytest.mark.parametrize("path", PATHS)
def test_a_column_first_read_in_the_middle_of_a_batch_is_staged_from_there(make_transform, path):
    transform = make_transform(KEY_ON_DEMAND, "key_on_demand", path=path)
    records = [make_record(value=v, key=b"key-%d" % i) for i, v in enumerate([b"a", b"b", b"k", b"c", b"k"])]

    out, origins, errors = run(transform, records)

    assert errors.failures == []
    assert origins == [0, 1, 2, 3, 4]
    assert [r.value for r in out] == [b"A", b"B", b"key-2", b"C", b"key-4"]
    assert [r.key for r in out] == [r.key for r in records]  # the guest never set them
    assert [r.headers for r in out] == [r.headers for r in records]


@pytest.mark.parametrize("path", PATHS)
def test_an_arrow_batch_keeps_what_the_guest_did_not_change(make_transform, path):
    transform = make_transform(KEY_ON_DEMAND, "key_on_demand", path=path)
    records = [
        make_record(value=v, key=None if i == 1 else b"k%d" % i, headers=(("h", b"%d" % i),), timestamp=None)
        for i, v in enumerate([b"k", b"x", b"k"])
    ]

    out = transform.apply_batch(RecordBatch.from_arrow(RecordBatch.from_records(records).to_arrow()), None)

    assert out.records() == [
        records[0].replace(value=b"k0"),
        records[1].replace(value=b"X"),
        records[2].replace(value=b"k2"),
    ]


@pytest.mark.parametrize("path", PATHS)
def test_a_part_the_guest_never_reads_is_never_converted(make_transform, path):
    # the byte-array converter cannot give the guest a str: only a guest reading it fails
    transform = make_transform(KEY_ON_DEMAND, "key_on_demand", path=path)
    records = [
        make_record(value=b"x", key="not bytes", headers=(("h", "not bytes"),)),
        make_record(value=b"k", key="not bytes"),
    ]

    out, origins, errors = run(transform, records)

    assert [(r.key, r.value, r.headers) for r in out] == [("not bytes", b"X", (("h", "not bytes"),))]
    assert errors.rows == [1]
    assert "key.converter failed: DataError: ByteArrayConverter is not compatible with objects of type str" in (
        errors.message(1)
    )


@pytest.mark.parametrize("path", PATHS)
def test_headers_that_cannot_be_converted_fail_only_a_record_whose_guest_reads_them(make_transform, path):
    transform = make_transform(g.HEADERS, "headers", path=path)
    records = [
        make_record(headers=(("h", b"1"),)),
        make_record(headers=(("h", "not bytes"),)),
        make_record(headers=(("h", b"3"),)),
    ]

    out, origins, errors = run(transform, records)

    assert origins == [0, 2]
    assert [r.headers[-2:] for r in out] == [
        (("copy", b"1"), ("topic", b"input")),
        (("copy", b"3"), ("topic", b"input")),
    ]
    assert errors.rows == [1]
    assert errors.message(1).endswith(
        "header.converter failed: DataError: ByteArrayConverter is not compatible with objects of type str "
        "on the record at partition=0 offset=0 (row 1 of the batch)"
    )
