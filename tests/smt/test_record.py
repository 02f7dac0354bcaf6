"""Record.replace: a copy with the changes, as ``dataclasses.replace`` gives it."""

import dataclasses

import pytest

from smt.record import Record, TimestampType


def a_record() -> Record:
    return Record(
        topic="orders", partition=2, offset=7, timestamp=1_700_000_000_000,
        timestamp_type=TimestampType.LOG_APPEND_TIME, key=b"k", value={"id": 1},
        headers=(("trace", b"1"),), key_schema=None, value_schema=None,
    )  # fmt: skip


def test_a_copy_keeps_every_field_it_is_not_given_and_takes_those_it_is():
    record = a_record()
    for field in dataclasses.fields(Record):
        if field.name == "headers":
            continue
        change = {field.name: f"new {field.name}"}
        assert record.replace(**change) == dataclasses.replace(record, **change)
    assert record.replace() == record and record.replace() is not record


def test_new_headers_are_normalized_as_the_constructor_normalizes_them():
    copied = a_record().replace(headers=[["a", b"1"], ("b", None)])
    assert copied.headers == (("a", b"1"), ("b", None))
    assert copied == dataclasses.replace(a_record(), headers=[["a", b"1"], ("b", None)])


def test_an_unknown_field_is_refused():
    with pytest.raises(TypeError, match="Record has no field 'values'"):
        a_record().replace(values=1)
