"""Debezium oracle cases for EventRouter: changes of an outbox table, with every placement and behaviour."""

from __future__ import annotations

import base64

from hypothesis import strategies as st

from tests.oracle import _debezium_cases as dbz
from tests.oracle._debezium_other._pipeline import paired, pipeline
from tests.oracle._debezium_other._timezone_converter import MILLIS, time_field

OUTBOX = "EventRouter (Debezium)"
#: Outbox table columns: (field schema, strategy of a value).
_OUTBOX_COLUMNS = {
    "id": (dbz._field("id", "string", False), st.sampled_from(["e-1", "e-2", "7f3a"])),
    "aggregatetype": (dbz._field("aggregatetype", "string", True), st.sampled_from(["Order", "User", "", None])),
    "aggregateid": (dbz._field("aggregateid", "string", False), st.sampled_from(["42", "43", "a b"])),
    "type": (dbz._field("type", "string", False), st.sampled_from(["Created", "Shipped"])),
    "payload": (dbz._field("payload", "string", True), st.sampled_from(['{"n":1}', "", "  ", None, "plain"])),
    # JSON payloads for table.expand.json.payload: nested objects, every number width, nulls, empty and
    # homogeneous arrays (objects of one shape: Debezium merges differing ones in HashSet order), arrays
    # whose value cannot be built, and payloads it cannot parse.
    "json_payload": (
        dbz._field("json_payload", "string", True),
        st.sampled_from(
            [
                '{"n":1}',
                '{"a":{"b":"x","c":[1,2]},"f":1.5,"t":true,"z":null,"e":[]}',
                '{"big":12345678901,"neg":-5,"tags":["p","q"]}',
                '{"lines":[{"sku":"x","q":1},{"sku":"y","q":2},null]}',
                '{"nested":{"deeper":{"v":null,"w":0.25}}}',
                '{"huge":123456789012345678901234}',
                '{"mixed":[1,"a"]}',
                '{"widths":[1,12345678901]}',
                '{"x":1} trailing',
                "[1,2]",
                "[]",
                "{}",
                ' {"x":1}',
                "",
                "plain",
                None,
            ]
        ),
    ),
    # Payloads with null fields (and arrays holding nulls), for table.json.payload.null.behavior.
    "json_nulls": (
        dbz._field("json_nulls", "string", True),
        st.sampled_from(
            [
                '{"z":null}',
                '{"a":1,"z":null,"deep":{"v":null}}',
                '{"all":[null,null]}',
                '{"lines":[{"sku":null},{"sku":null}]}',
                '{"s":"x","n":null}',
            ]
        ),
    ),
    "ts": (time_field("ts", "int64", "io.debezium.time.Timestamp"), st.one_of(st.none(), MILLIS)),
    "ts_us": (
        time_field("ts_us", "int64", "io.debezium.time.MicroTimestamp"),
        st.one_of(st.none(), st.integers(-(10**15), 2 * 10**15)),
    ),
    "version": (dbz._field("version", "int32", True), st.sampled_from([1, 2, None])),
    "part": (dbz._field("part", "int32", True), st.sampled_from([0, 1, 5])),
    "extra": (dbz._field("extra", "string", True), st.sampled_from(["x", None])),
}


_OUTBOX_SOURCE = {
    "version": "3.6.1.Final",
    "connector": "postgresql",
    "name": "srv",
    "ts_ms": 1_700_000_000_000,
    "snapshot": "false",
    "db": "inv",
    "table": "outbox",
    "lsn": None,
    "ts_us": None,
}
#: EventRouter configurations: the defaults; other route, key, payload columns and replacements;
#: every placement (envelope with alias and schema version, header, partition), a missing column
#: with both behaviours; each timestamp column kind; tombstones for empty payloads; each behaviour
#: for updates; a regex the aggregate type may not match; configurations both refuse.
_OUTBOX_SETTINGS = [
    {},
    {"route.topic.replacement": "events.${routedByValue}"},
    {"route.by.field": "type", "route.topic.regex": "(?<routedByValue>.*)", "route.topic.replacement": "t.$1"},
    {"route.topic.regex": "(Order|User)", "route.topic.replacement": "shop.$1"},
    {"table.field.event.key": "id"},
    {"table.field.event.key": "nope"},
    {"table.field.event.id": "aggregateid", "table.field.event.payload": "type"},
    {"table.field.event.payload": "nope"},
    {"table.fields.additional.placement": "type:header:eventType"},
    {"table.fields.additional.placement": "type:envelope:eventType,aggregateid:envelope"},
    {"table.fields.additional.placement": "type:envelope", "table.field.event.schema.version": "version"},
    {"table.fields.additional.placement": "part:partition"},
    {"table.fields.additional.placement": "extra:header,extra:envelope:more"},
    {"table.fields.additional.placement": "extra:header", "table.field.additional.missing": "ignore"},
    {"table.fields.additional.placement": "extra:envelope", "table.field.additional.missing": "error"},
    {"table.field.event.timestamp": "ts"},
    {"table.field.event.timestamp": "ts_us"},
    {"table.field.event.timestamp": "aggregateid"},
    {"route.tombstone.on.empty.payload": "true"},
    {"table.op.invalid.behavior": "fatal"},
    {"table.op.invalid.behavior": "error"},
    {"table.op.invalid.behavior": "WARN"},
    {"route.topic.regex": "(unclosed"},
    {"table.expand.json.payload": "true", "table.field.event.payload": "json_payload"},
    {
        "table.expand.json.payload": "true",
        "table.field.event.payload": "json_nulls",
        "table.json.payload.null.behavior": "optional_bytes",
    },
    {"table.expand.json.payload": "true", "table.field.event.payload": "json_nulls"},
    {
        "table.expand.json.payload": "true",
        "table.field.event.payload": "json_payload",
        "route.tombstone.on.empty.payload": "true",
    },
    {"table.expand.json.payload": "true"},
    {
        "table.expand.json.payload": "true",
        "table.field.event.payload": "json_payload",
        "table.fields.additional.placement": "type:envelope",
    },
]


def outbox_cases() -> list[dict]:
    """Each of :data:`_OUTBOX_SETTINGS` four times, on SourceRecords in Debezium's JVM (an outbox event
    has no partition unless a column gives one, which a SinkRecord cannot hold). Where columns go to
    the envelope, every event of a batch has one aggregate type: Debezium caches the value schema by
    payload schema alone, so a second type would get the first one's schema name (a documented
    difference)."""
    type_ = "io.debezium.transforms.outbox.EventRouter"
    enveloped = [keys for keys in _OUTBOX_SETTINGS if ":envelope" in keys.get("table.fields.additional.placement", "")]
    plain = [keys for keys in _OUTBOX_SETTINGS if keys not in enveloped]
    return [
        {**pipeline(OUTBOX, type_, keys, records, True), "source_records": True}
        for keys, records in paired(plain * 4, _outbox_events()) + paired(enveloped * 4, _outbox_events(True))
    ]


@st.composite
def _outbox_events(draw, one_type: bool = False) -> list[dict]:
    """Changes of an outbox table (creates and reads mostly; updates, deletes, tombstones and values
    that are no envelope too), some columns left out of the table; with ``one_type`` every event has
    the aggregate type ``Order``."""
    optional = draw(st.lists(st.sampled_from(["ts", "ts_us", "version", "part", "extra"]), unique=True))
    columns = ["id", "aggregatetype", "aggregateid", "type", "payload", "json_payload", "json_nulls", *optional]
    row_schema = {
        "type": "struct",
        "name": "srv.public.outbox.Value",
        "optional": True,
        "fields": [_OUTBOX_COLUMNS[c][0] for c in columns],
    }
    envelope_schema = {
        "type": "struct",
        "name": "srv.public.outbox.Envelope",
        "optional": False,
        "fields": [
            {**row_schema, "field": "before"},
            {**row_schema, "field": "after"},
            {**dbz.SOURCE_SCHEMA, "field": "source"},
            dbz._field("op", "string", False),
            dbz._field("ts_ms", "int64", True),
        ],
    }
    key_schema = {
        "type": "struct",
        "name": "srv.public.outbox.Key",
        "optional": False,
        "fields": [_OUTBOX_COLUMNS["id"][0]],
    }

    def row() -> dict:
        values = {c: draw(_OUTBOX_COLUMNS[c][1]) for c in columns}
        return {**values, "aggregatetype": "Order"} if one_type else values

    records = []
    for _ in range(dbz.RECORDS_PER_CASE):
        op = draw(st.sampled_from(["c", "c", "c", "r", "u", "d", "tombstone", "other"]))
        after = row()
        payload = {
            "before": row() if op in ("u", "d") else None,
            "after": None if op == "d" else after,
            "source": _OUTBOX_SOURCE,
            "op": op,
            "ts_ms": draw(MILLIS),
        }
        if op == "tombstone":
            value = None
        elif op == "other":
            value = {"schema": {**row_schema, "optional": False}, "payload": after}
        else:
            value = {"schema": envelope_schema, "payload": payload}
        records.append(
            {
                "topic": "srv.public.outbox",
                "partition": draw(st.integers(0, 2)),
                "timestamp": draw(st.one_of(st.none(), st.integers(1_600_000_000_000, 1_800_000_000_000))),
                "key": dbz._b64({"schema": key_schema, "payload": {"id": after["id"]}}),
                "value": None if value is None else dbz._b64(value),
                "headers": [["h1", base64.b64encode(b"kept").decode()]] if draw(st.booleans()) else [],
            }
        )
    return records
