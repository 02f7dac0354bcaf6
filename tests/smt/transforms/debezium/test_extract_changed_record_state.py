"""ExtractChangedRecordState: changed/unchanged field names as headers, on PostgreSQL-layout events."""

import math

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import DataError
from smt.plugins import default_plugins
from smt.transforms.debezium.extract_changed_record_state import ExtractChangedRecordState
from tests.smt.transforms._helpers import conf, make_record
from tests.smt.transforms.debezium._events import ENVELOPE, event, row

BOTH = {"header.changed.name": "Changed", "header.unchanged.name": "Unchanged"}


def changes(props=None):
    return conf(ExtractChangedRecordState, BOTH if props is None else props)


def test_an_update_lists_changed_and_unchanged_fields_in_after_order():
    out = changes().apply(event("u", before=row(1, "old", b"\x01", 1.5), after=row(1, "new", b"\x01", 1.5)))
    assert out.headers == (("Changed", ["email"]), ("Unchanged", ["id", "photo", "score"]))
    assert out.value.get("after").get("email") == "new"  # the value is left as it was


def test_bytes_are_compared_by_content_and_nan_equals_nan():
    before, after = row(1, None, bytes([1, 2]), math.nan), row(1, None, bytearray([1, 2]), math.nan)
    out = changes().apply(event("u", before=before, after=after))
    assert out.header("Changed") == []
    assert out.header("Unchanged") == ["id", "email", "photo", "score"]


@pytest.mark.parametrize(
    ("op", "before", "after"),
    [("c", None, row(1, "a")), ("r", None, row(1, "a")), ("d", row(1, "a"), None)],
)
def test_events_without_both_states_get_empty_lists(op, before, after):
    out = changes().apply(event(op, before=before, after=after))
    assert out.headers == (("Changed", []), ("Unchanged", []))


def test_only_configured_headers_are_added_and_existing_ones_kept():
    record = event("u", before=row(1, "a"), after=row(1, "b"), headers=(("trace", b"7"),))
    out = changes({"header.unchanged.name": "Same"}).apply(record)
    assert out.headers == (("trace", b"7"), ("Same", ["id", "photo", "score"]))


@pytest.mark.parametrize("props", [{}, {"header.changed.name": "  ", "header.unchanged.name": ""}])
def test_no_names_or_blank_names_add_nothing(props):
    record = event("u", before=row(1, "a"), after=row(1, "b"))
    assert changes(props).apply(record) is record


def test_tombstones_schemaless_values_and_other_schemas_pass_unchanged():
    xform = changes()
    tombstone = make_record(None, value_schema=ENVELOPE)
    schemaless = make_record({"before": {"id": 1}, "after": {"id": 2}, "op": "u"})
    other_schema = SchemaBuilder.struct().name("server.public.customers.Value").field("id", Schema.INT32_SCHEMA).build()
    other = make_record(Struct(other_schema).put("id", 1), value_schema=other_schema)
    unnamed = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build()
    for record in (tombstone, schemaless, other, make_record(Struct(unnamed).put("id", 1), value_schema=unnamed)):
        assert xform.apply(record) is record


def test_an_envelope_schema_over_a_map_value_fails_naming_the_check():
    record = make_record({"before": None, "after": None}, value_schema=ENVELOPE)
    with pytest.raises(
        DataError, match=r"Only Struct objects supported for \[Record value should be struct.\], found: dict"
    ):
        changes().apply(record)


def test_an_after_field_missing_from_before_fails():
    short = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).optional().build()
    long = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).field("email", Schema.OPTIONAL_STRING_SCHEMA)
    long = long.optional().build()
    envelope = SchemaBuilder.struct().name("x.Envelope").field("before", short).field("after", long).build()
    value = Struct(envelope).put("before", Struct(short).put("id", 1)).put("after", Struct(long).put("id", 1))
    with pytest.raises(DataError, match="email is not a valid field name"):
        changes().apply(make_record(value, value_schema=envelope))


def test_registered_under_debezium_class_name_with_its_keys():
    cls = default_plugins().get("transform", "io.debezium.transforms.ExtractChangedRecordState")
    assert cls is ExtractChangedRecordState
    assert [key.name for key in cls.config_def.keys] == ["header.changed.name", "header.unchanged.name"]
