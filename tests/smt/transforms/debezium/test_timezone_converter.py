"""TimezoneConverter on change events carrying every kind of time field Debezium produces.

Expected instants were computed with java.time the way Debezium 3.6.1's TimezoneConverter does.
"""

import datetime as dt
import logging

import pytest

from smt.data import Date, Schema, SchemaBuilder, Struct, Timestamp
from smt.errors import ConfigError, DataError
from smt.plugins import default_plugins
from smt.transforms.debezium.timezone_converter import TimezoneConverter
from tests.smt.transforms._helpers import conf, make_record
from tests.smt.transforms.debezium._events import POSTGRES_SOURCE, envelope_schema, struct_schema

UTC = dt.timezone.utc


def named(builder, name):
    return builder.name(name).optional().build()


ROW = (
    SchemaBuilder.struct()
    .name("server.public.customers.Value")
    .field("id", Schema.INT32_SCHEMA)
    .field("created", named(SchemaBuilder.int64(), "io.debezium.time.Timestamp"))
    .field("micro", named(SchemaBuilder.int64(), "io.debezium.time.MicroTimestamp"))
    .field("nano", named(SchemaBuilder.int64(), "io.debezium.time.NanoTimestamp"))
    .field("zoned", named(SchemaBuilder.string(), "io.debezium.time.ZonedTimestamp"))
    .field("zoned_time", named(SchemaBuilder.string(), "io.debezium.time.ZonedTime"))
    .field("kafka_ts", Timestamp.builder().optional().build())
    .field("birthday", Date.builder().optional().build())
    .field("plain", Schema.OPTIONAL_INT64_SCHEMA)
    .optional()
    .build()
)
SOURCE = struct_schema(POSTGRES_SOURCE, {"table": Schema.STRING_SCHEMA, "ts_ms": Schema.INT64_SCHEMA})
ENVELOPE = envelope_schema(ROW, SOURCE)
NOON_JULY = 1719835200000  # 2024-07-01T12:00:00Z
TOPIC = "server.public.customers"


def row(millis=NOON_JULY, zoned="2024-07-01T12:00:00.120Z"):
    out = Struct(ROW).put("id", 1).put("created", millis).put("micro", millis * 1000).put("nano", millis * 1_000_000)
    out.put("zoned", zoned).put("zoned_time", "12:00:00.5Z").put("plain", millis)
    out.put("kafka_ts", dt.datetime.fromtimestamp(millis / 1000, UTC)).put("birthday", dt.date(2000, 1, 2))
    return out


def event(before=None, after=None, table="customers", topic=TOPIC):
    source = Struct(SOURCE).put("table", table).put("ts_ms", NOON_JULY)
    value = Struct(ENVELOPE).put("op", "u").put("before", before).put("after", after).put("source", source)
    return make_record(value.put("ts_ms", NOON_JULY), value_schema=ENVELOPE, topic=topic)


def converter(zone="America/New_York", **lists):
    return conf(TimezoneConverter, {"converted.timezone": zone, **{k.replace("_", "."): v for k, v in lists.items()}})


def test_every_timestamp_of_before_and_after_keeps_its_wall_clock_in_the_zone(caplog):
    record = event(before=row(), after=row())
    with caplog.at_level(logging.WARNING):
        out = converter().apply(record)
    four_hours = 4 * 3600 * 1000
    for state in ("before", "after"):
        part = out.value.get(state)
        assert part.get("created") == NOON_JULY + four_hours
        assert part.get("micro") == (NOON_JULY + four_hours) * 1000
        assert part.get("nano") == (NOON_JULY + four_hours) * 1_000_000
        assert part.get("kafka_ts") == dt.datetime(2024, 7, 1, 16, tzinfo=UTC)
        assert part.get("zoned") == "2024-07-01T08:00:00.12-04:00"
        assert part.get("birthday") == dt.date(2000, 1, 2)
        assert (part.get("plain"), part.get("id")) == (NOON_JULY, 1)
    assert out.value.get("source").get("ts_ms") == NOON_JULY  # source fields only when a rule names them
    assert out.value.get("ts_ms") == NOON_JULY
    assert "Skipping conversion for unsupported logical type: org.apache.kafka.connect.data.Date" in caplog.text
    assert record.value.get("after").get("created") == NOON_JULY  # the input record is left as it was


def test_zoned_time_takes_the_zone_offset_it_has_now():
    out = converter("+08:00").apply(event(after=row()))
    assert out.value.get("after").get("zoned_time") == "20:00:00.5+08:00"
    out = converter("+05:45").apply(event(after=row().put("zoned_time", "23:30Z")))
    assert out.value.get("after").get("zoned_time") == "05:15:00+05:45"


@pytest.mark.parametrize(
    ("millis", "expected"),
    [
        (1719835200000, 1719849600000),  # summer: -04:00
        (1710037800000, 1710055800000),  # 02:30 on 2024-03-10 is in the gap: the offset before it (-05:00)
        (1730597400000, 1730611800000),  # 01:30 on 2024-11-03 happens twice: the earlier offset (-04:00)
    ],
)
def test_gaps_and_overlaps_take_the_offset_before_the_transition(millis, expected):
    assert converter().apply(event(after=row(millis))).value.get("after").get("created") == expected


@pytest.mark.parametrize(
    ("zone", "zoned", "expected"),
    [
        ("America/New_York", "2024-03-10T02:30:00Z", "2024-03-09T21:30:00-05:00"),
        ("America/New_York", "2024-01-01T00:30+01:00", "2023-12-31T18:30:00-05:00"),
        ("America/New_York", "2024-07-01T12:00:00.000000001Z", "2024-07-01T08:00:00.000000001-04:00"),
        ("Asia/Kolkata", "2024-07-01T12:00:00.120Z", "2024-07-01T17:30:00.12+05:30"),
        ("UTC", "2024-07-01T12:00:00+02:00", "2024-07-01T10:00:00Z"),
    ],
)
def test_zoned_timestamps_keep_their_instant(zone, zoned, expected):
    out = converter(zone).apply(event(after=row(zoned=zoned)))
    assert out.value.get("after").get("zoned") == expected


def test_micro_timestamps_before_the_epoch():
    micro = row().put("micro", -1_500_001)
    assert converter().apply(event(after=micro)).value.get("after").get("micro") == 17998499999


def test_include_rules_pick_events_and_fields_and_source_epochs_move_the_other_way():
    xform = converter(include_list="source:customers:after.created,customers:source.ts_ms")
    out = xform.apply(event(before=row(), after=row()))
    assert out.value.get("after").get("created") == NOON_JULY + 4 * 3600 * 1000
    assert out.value.get("before").get("created") == NOON_JULY  # only after.created was named
    assert out.value.get("after").get("micro") == NOON_JULY * 1000
    assert out.value.get("source").get("ts_ms") == NOON_JULY - 4 * 3600 * 1000
    other = event(after=row(), table="orders", topic="server.public.orders")
    assert xform.apply(other).value == other.value


def test_an_include_rule_without_fields_converts_the_whole_event():
    xform = converter(include_list="topic:server.public.orders")
    out = xform.apply(event(after=row(), table="orders", topic="server.public.orders"))
    assert out.value.get("after").get("created") == NOON_JULY + 4 * 3600 * 1000
    assert xform.apply(event(after=row())).value.get("after").get("created") == NOON_JULY


def test_a_rule_without_prefix_takes_the_one_before_it():
    xform = converter(include_list="source:elsewhere, customers:created")
    assert xform.tables == {"elsewhere": frozenset(), "customers": frozenset({"created"})}
    assert xform.apply(event(after=row())).value.get("after").get("created") == NOON_JULY + 4 * 3600 * 1000
    as_topic = converter(include_list="topic:elsewhere, customers:created")
    assert as_topic.topics == {"elsewhere": frozenset(), "customers": frozenset({"created"})}
    assert as_topic.apply(event(after=row())).value.get("after").get("created") == NOON_JULY  # no topic "customers"


def test_exclude_rules():
    by_field = converter(exclude_list="source:customers:created").apply(event(after=row()))
    assert by_field.value.get("after").get("created") == NOON_JULY
    assert by_field.value.get("after").get("micro") == (NOON_JULY + 4 * 3600 * 1000) * 1000
    whole = event(after=row())
    assert converter(exclude_list="topic:" + TOPIC).apply(whole) is whole  # a rule without fields: untouched
    unmatched = converter(exclude_list="source:orders:created").apply(event(after=row()))
    assert unmatched.value.get("after").get("created") == NOON_JULY + 4 * 3600 * 1000


def test_tombstones_and_other_values_pass():
    xform = converter()
    tombstone = make_record(None, value_schema=ENVELOPE)
    schemaless = make_record({"after": {"created": NOON_JULY}})
    plain = make_record(row(), value_schema=ROW)
    for record in (tombstone, schemaless, plain):
        assert xform.apply(record) is record


def test_an_epoch_field_that_is_not_int64_fails():
    source = SchemaBuilder.struct().field("table", Schema.STRING_SCHEMA).field("ts_ms", Schema.INT32_SCHEMA).build()
    envelope = SchemaBuilder.struct().name("x.Envelope").field("after", ROW).field("source", source).build()
    value = Struct(envelope).put("after", row()).put("source", Struct(source).put("table", "t").put("ts_ms", 5))
    with pytest.raises(DataError, match="Epoch field value should be a java.lang.Long"):
        converter(include_list="t:source.ts_ms").apply(make_record(value, value_schema=envelope))


def test_an_unparsable_zoned_timestamp_fails_naming_its_type():
    with pytest.raises(DataError, match=r"Text 'yesterday' could not be parsed .*io\.debezium\.time\.ZonedTimestamp"):
        converter().apply(event(after=row(zoned="yesterday")))


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({}, r"transforms\.t\.converted\.timezone"),
        ({"converted.timezone": " "}, r"transforms\.t\.converted\.timezone.*A value is required"),
        ({"converted.timezone": "Mars/Olympus"}, r"transforms\.t\.converted\.timezone.*Invalid timezone format"),
        ({"converted.timezone": "+19:00"}, r"transforms\.t\.converted\.timezone.*from -18:00 to \+18:00"),
        (
            {"converted.timezone": "UTC", "include.list": "customers"},
            r"transforms\.t\.include\.list.*Invalid include list format",
        ),
        (
            {"converted.timezone": "UTC", "exclude.list": "source:t1:f1,topic:t2:f2"},
            r"transforms\.t\.exclude\.list.*Invalid exclude list format",
        ),
        (  # Debezium reads an empty list as one empty rule (Java's "".split(",") is [""])
            {"converted.timezone": "UTC", "include.list": ""},
            r"transforms\.t\.include\.list.*Invalid include list format",
        ),
        (
            {"converted.timezone": "UTC", "include.list": "source:cust(omers"},
            r"transforms\.t\.include\.list.*A comma-separated list of valid regular expressions is expected",
        ),
        (
            {"converted.timezone": "UTC", "include.list": "t:a", "exclude.list": "t:b"},
            r"transforms\.t\.exclude\.list.*Both include and exclude lists are specified",
        ),
    ],
)
def test_config_rejections_name_the_key(props, message):
    with pytest.raises(ConfigError, match=message):
        conf(TimezoneConverter, props)


def test_lists_are_split_as_debezium_splits_them():
    # Java's String.split drops trailing empty items: a trailing comma leaves one rule, a lone comma none.
    assert converter(include_list="customers:after.ts,").mode == "include"
    assert converter(include_list=",").mode == "all"


def test_offsets_and_zone_names_are_accepted():
    assert converter("-03:30").zone.utcoffset(None) == dt.timedelta(hours=-3, minutes=-30)
    assert str(converter("Europe/Paris").zone) == "Europe/Paris"


def test_registered_under_debezium_class_name():
    assert default_plugins().get("transform", "io.debezium.transforms.TimezoneConverter") is TimezoneConverter
