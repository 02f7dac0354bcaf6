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
    records = [make_record(value=v, key=None if i == 1 else b"k%d" % i, headers=(("h", b"%d" % i),), timestamp=None)
               for i, v in enumerate([b"k", b"x", b"k"])]

    out = transform.apply_batch(RecordBatch.from_arrow(RecordBatch.from_records(records).to_arrow()), None)

    assert out.records() == [records[0].replace(value=b"k0"), records[1].replace(value=b"X"),
                             records[2].replace(value=b"k2")]


@pytest.mark.parametrize("path", PATHS)
def test_a_part_the_guest_never_reads_is_never_converted(make_transform, path):
    # the byte-array converter cannot give the guest a str: only a guest reading it fails
    transform = make_transform(KEY_ON_DEMAND, "key_on_demand", path=path)
    records = [make_record(value=b"x", key="not bytes", headers=(("h", "not bytes"),)),
               make_record(value=b"k", key="not bytes")]

    out, origins, errors = run(transform, records)

    assert [(r.key, r.value, r.headers) for r in out] == [("not bytes", b"X", (("h", "not bytes"),))]
    assert errors.rows == [1]
    assert "key.converter failed: DataError: ByteArrayConverter is not compatible with objects of type str" in (
        errors.message(1))


#: emits the record as many times as the value's first byte says, then outputs it once more.
FAN_OUT = g.guest(
    """(func (export "fan_out") (local $v i64) (local $n i32)
    (call $reset)
    (local.set $v (call $get_value))
    (local.set $n (i32.load8_u (call $ptr (local.get $v))))
    (block $done (loop $next
      (br_if $done (i32.eqz (local.get $n)))
      (call $emit_record)
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br $next))))""",
    imports=("get_value", "emit_record"),
)


@pytest.mark.parametrize("path", PATHS)
def test_a_record_that_outputs_more_than_max_outputs_per_record_fails_alone(make_transform, path):
    transform = make_transform(FAN_OUT, "fan_out", path=path, max_outputs_per_record=3)

    out, origins, errors = run(transform, [make_record(value=bytes([2])), make_record(value=bytes([3])),
                                           make_record(value=bytes([0]))])

    assert origins == [0, 0, 0, 2]
    assert errors.rows == [1]
    assert errors.message(1) == (
        "wasm transform 'mask' (fan_out in " + transform.guest.label + "): the record output more than 3 records "
        "(max.outputs.per.record=3) on the record at partition=0 offset=0 (row 1 of the batch)"
    )


def test_max_outputs_per_record_defaults_to_ten_thousand(make_transform):
    transform = make_transform(FAN_OUT, "fan_out")

    assert transform.config["max.outputs.per.record"] == 10_000


@pytest.mark.parametrize("path", PATHS)
def test_headers_that_cannot_be_converted_fail_only_a_record_whose_guest_reads_them(make_transform, path):
    transform = make_transform(g.HEADERS, "headers", path=path)
    records = [make_record(headers=(("h", b"1"),)), make_record(headers=(("h", "not bytes"),)),
               make_record(headers=(("h", b"3"),))]

    out, origins, errors = run(transform, records)

    assert origins == [0, 2]
    assert [r.headers[-2:] for r in out] == [(("copy", b"1"), ("topic", b"input")), (("copy", b"3"), ("topic", b"input"))]
    assert errors.rows == [1]
    assert errors.message(1).endswith(
        "header.converter failed: DataError: ByteArrayConverter is not compatible with objects of type str "
        "on the record at partition=0 offset=0 (row 1 of the batch)")
