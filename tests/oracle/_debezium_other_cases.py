"""Generated cases for Debezium's other transforms (tests/oracle/test_debezium_other_transforms.py).

Each family is a pipeline case with one Debezium transform over change events in the layout of
tests/oracle/_debezium_cases.py (a ``*.Key`` struct key, a ``*.Envelope`` value, ops c/r/u/d/t,
tombstones, values that are no envelope, some read without schemas), with that transform's keys
and the edge values it reads. :data:`FAMILIES` names each family's plugin and its cases.
"""

from __future__ import annotations

import base64
import itertools
import json
from typing import Any, Callable

from hypothesis import strategies as st

from tests.oracle import _debezium_cases as dbz
from tests.oracle._cases import JSON
from tests.oracle._generation import generate, scaled

ALIAS = "t"


def pipeline(plugin: str, type_: str, settings: dict, records: list[dict], with_schemas: bool) -> dict:
    """A pipeline case: JsonConverter (with or without schemas) around one transform ``type_``."""
    enabled = "true" if with_schemas else "false"
    config = {
        "key.converter": JSON,
        "key.converter.schemas.enable": enabled,
        "value.converter": JSON,
        "value.converter.schemas.enable": enabled,
        # Nulls reach the transforms as nulls, not as their fields' defaults.
        "value.converter.replace.null.with.default": "false",
        "transforms": ALIAS,
        f"transforms.{ALIAS}.type": type_,
        **{f"transforms.{ALIAS}.{k}": v for k, v in settings.items() if v is not None},
    }
    return {
        "kind": "pipeline",
        "plugin": plugin,
        "config": config,
        "records": [{**r, "offset": offset} for offset, r in enumerate(records)],
    }


def _paired(settings: list[dict], events) -> list[tuple[dict, list[dict]]]:
    """Each of ``settings`` (in turn, again for a scaled run) with its own batch drawn from ``events``:
    the configurations are listed, so that each is sure to run, and the events are generated."""
    return list(zip(itertools.cycle(settings), generate(events, scaled(len(settings)))))


def _records(draw, tables: list[dict], with_schemas: bool, count: int = dbz.RECORDS_PER_CASE) -> list[dict]:
    return [draw(dbz.record(draw(st.sampled_from(tables)), with_schemas, None)) for _ in range(count)]


def _with_schemas(draw) -> bool:
    return draw(st.integers(0, 7)) > 0


# --- ExtractChangedRecordState ---------------------------------------------------------------

CHANGED = "ExtractChangedRecordState (Debezium)"
#: -0.0 and 0.0 would differ for Java's Double.equals, but JsonConverter reads both as 0.0 (through
#: BigDecimal), so both sides find them equal.
_SIGNED_ZERO = st.sampled_from([0.0, -0.0])


@st.composite
def _update(draw, table: dict) -> dict:
    """An update whose ``after`` keeps some of ``before``'s values: a record as dbz.record writes one."""
    before = draw(dbz.row(table))
    after = {
        name: value if draw(st.integers(0, 2)) > 0 else draw(dbz.row(table))[name] for name, value in before.items()
    }
    if "price" in before and draw(st.booleans()):
        before["price"], after["price"] = draw(_SIGNED_ZERO), draw(_SIGNED_ZERO)
    event = draw(dbz.change_event(table))
    if event["value"] is None:
        return None
    return {**event["value"], "before": before, "after": after, "op": "u"}


@st.composite
def changed_case(draw) -> dict:
    settings = {
        "header.changed.name": draw(st.sampled_from([None, "changed", "", " ", "same"])),
        "header.unchanged.name": draw(st.sampled_from([None, "unchanged", "same"])),
    }
    with_schemas = _with_schemas(draw)
    tables = draw(st.lists(dbz.table(), min_size=1, max_size=2))
    records = _records(draw, tables, with_schemas)
    for index, record in enumerate(records):
        if with_schemas and draw(st.booleans()):
            table = draw(st.sampled_from(tables))
            value = draw(_update(table))
            if value is not None:
                records[index] = {**record, "topic": f"srv.inv.{table['name']}", "value": _envelope(table, value)}
    return pipeline(CHANGED, "io.debezium.transforms.ExtractChangedRecordState", settings, records, with_schemas)


def _envelope(table: dict, value: dict) -> str:
    return dbz._b64({"schema": table["envelope_schema"], "payload": value})


# --- TimezoneConverter -----------------------------------------------------------------------

TIMEZONE = "TimezoneConverter (Debezium)"
#: Instants (epoch milliseconds) whose UTC wall-clock reading falls in a gap or an overlap of
#: New York, London or Lord Howe (a 30-minute shift), midnight, the epoch and before it.
_EDGE_MILLIS = (
    1_710_037_800_000,  # 2024-03-10T02:30, New York's spring gap
    1_730_597_400_000,  # 2024-11-03T01:30, New York's autumn overlap
    1_711_848_600_000,  # 2024-03-31T01:30, London's gap
    1_729_992_600_000,  # 2024-10-27T01:30, London's overlap
    1_712_417_400_000,  # 2024-04-06T15:30, Lord Howe's overlap (01:30 +11:00)
    1_704_067_200_000,  # 2024-01-01T00:00
    0,
    -1,
    -86_400_001,
)
_MILLIS = st.one_of(st.sampled_from(_EDGE_MILLIS), st.integers(-(10**11), 2 * 10**12))
_ZONED_TIMESTAMPS = st.sampled_from(
    [
        "2024-03-10T02:30:00Z",
        "2024-03-10T07:30:00.123456Z",
        "2024-11-03T01:30:00-04:00",
        "2024-10-27T01:30:00.5+01:00",
        "2023-06-01T12:00:00.000000001+05:30",
        "1969-12-31T23:59:59.999Z",
        "2024-02-29T23:59:59.100-08:00",
    ]
)
_ZONED_TIMES = st.sampled_from(["12:30:00Z", "23:59:59.5+05:30", "00:00:00-08:00", "07:15:30.000123Z"])


def _time_field(field: str, type_: str, name: str | None, default: Any = None) -> dict:
    extra = {"name": name, "version": 1} if name else {}
    return dbz._field(field, type_, True, default, **extra)


#: Row columns of time types: (field schema, strategy of a non-null value).
TIME_COLUMNS = {
    "at": (_time_field("at", "int64", "io.debezium.time.Timestamp"), _MILLIS),
    "at_d": (_time_field("at_d", "int64", "io.debezium.time.Timestamp", 1_710_037_800_000), _MILLIS),
    "at_us": (
        _time_field("at_us", "int64", "io.debezium.time.MicroTimestamp"),
        st.builds(lambda ms, us: ms * 1000 + us, _MILLIS, st.sampled_from([0, 1, 999, -500])),
    ),
    "at_ns": (
        _time_field("at_ns", "int64", "io.debezium.time.NanoTimestamp"),
        st.builds(lambda ms, ns: ms * 1_000_000 + ns, _MILLIS, st.sampled_from([0, 1, 999_999])),
    ),
    "at_k": (_time_field("at_k", "int64", "org.apache.kafka.connect.data.Timestamp"), _MILLIS),
    "zts": (_time_field("zts", "string", "io.debezium.time.ZonedTimestamp"), _ZONED_TIMESTAMPS),
    "zt": (_time_field("zt", "string", "io.debezium.time.ZonedTime"), _ZONED_TIMES),
    "day": (_time_field("day", "int32", "io.debezium.time.Date"), st.integers(-1000, 20000)),
    "day_k": (_time_field("day_k", "int32", "org.apache.kafka.connect.data.Date"), st.integers(-1000, 20000)),
    "n": (_time_field("n", "int64", None), _MILLIS),
}
#: A source block with every epoch field, ts_ms sometimes int32 (Debezium requires a Long).
_SOURCE_FIELDS = [f for f in dbz.SOURCE_SCHEMA["fields"] if f["field"] != "ts_ms"]


def _time_source_schema(ts_ms_type: str) -> dict:
    stamps = [dbz._field("ts_ms", ts_ms_type, False), dbz._field("ts_ns", "int64", True)]
    return {**dbz.SOURCE_SCHEMA, "fields": _SOURCE_FIELDS + stamps}


@st.composite
def _time_record(draw, name: str, columns: list[str], ts_ms_type: str) -> dict:
    row_schema = {
        "type": "struct",
        "name": f"srv.inv.{name}.Value",
        "optional": True,
        "fields": [dbz._field("id", "int32", False)] + [TIME_COLUMNS[c][0] for c in columns],
    }
    envelope_schema = {
        "type": "struct",
        "name": f"srv.inv.{name}.Envelope",
        "optional": False,
        "fields": [
            {**row_schema, "field": "before"},
            {**row_schema, "field": "after"},
            {**_time_source_schema(ts_ms_type), "field": "source"},
            dbz._field("op", "string", False),
            dbz._field("ts_ms", "int64", True),
        ],
    }

    def state() -> dict:
        values = {"id": draw(st.integers(1, 9))}
        for column in columns:
            values[column] = None if draw(st.integers(0, 4)) == 0 else draw(TIME_COLUMNS[column][1])
        return values

    op = draw(st.sampled_from(["c", "r", "u", "d", "tombstone", "other"]))
    millis = draw(_MILLIS) if ts_ms_type == "int64" else draw(st.integers(0, 10**6))
    source = {
        "version": "3.6.1.Final",
        "connector": "postgresql",
        "name": "srv",
        "ts_ms": millis,
        "snapshot": "false",
        "db": "inv",
        "table": name,
        "lsn": None,
        "ts_us": None if draw(st.booleans()) else draw(TIME_COLUMNS["at_us"][1]),
        "ts_ns": None if draw(st.booleans()) else draw(TIME_COLUMNS["at_ns"][1]),
    }
    payload = {
        "before": state() if op in ("u", "d") else None,
        "after": state() if op in ("c", "r", "u") else None,
        "source": source,
        "op": op,
        "ts_ms": draw(_MILLIS),
    }
    if op == "tombstone":
        value = None
    elif op == "other":  # a row, no envelope: passed unchanged
        value = {"schema": {**row_schema, "optional": False}, "payload": state()}
    else:
        value = {"schema": envelope_schema, "payload": payload}
    key = {"schema": {"type": "struct", "name": f"srv.inv.{name}.Key", "fields": [dbz._field("id", "int32", False)]}}
    key["payload"] = {"id": draw(st.integers(1, 9))}
    return {
        "topic": f"srv.inv.{name}",
        "partition": draw(st.integers(0, 2)),
        "timestamp": draw(st.one_of(st.none(), st.integers(1_600_000_000_000, 1_800_000_000_000))),
        "key": dbz._b64(key),
        "value": None if value is None else dbz._b64(value),
        "headers": [],
    }


_ZONES = ["UTC", "America/New_York", "Asia/Kolkata", "Europe/London", "Australia/Lord_Howe", "+08:00", "-03:30"]
_ZONES += ["+05:45:30"]  # an offset with seconds
_BAD_ZONES = ["Mars/Olympus", "8:00", "+5:00"]
#: Lists Debezium reads its own way: a rule without a field name, with too many parts, without a
#: match; an empty list (one empty rule), a trailing comma, a prefix in capitals.
_ODD_RULES = [
    "orders",
    "source:orders:at:x",
    "topic:",
    "",
    ",",
    "orders:at,",
    "SOURCE:orders:at",
    "Topic:srv.inv.users",
]


#: include.list / exclude.list values: whole tables and topics, fields of before/after/both/source,
#: several rules (of two parts: Debezium's pattern refuses a three-part rule after the first),
#: names no event has.
_RULES = [
    "source:orders",
    "source:users:after.at",
    "topic:srv.inv.orders",
    "topic:srv.inv.users:zts",
    "orders:at_us",
    "srv.inv.users:before.at_k",
    "orders:source.ts_ms",
    "users:source.ts_us,users:source.ts_ns,orders:zt",
    "orders:at,users:at_d,srv.inv.orders:at_ns",
    "source:orders:missing",
    "topic:srv.inv.orders:source.ts_ns",
    "source:users:day",
    "source:orders,users:zt",
]


@st.composite
def _time_events(draw, ts_ms_type: str = "int64") -> list[dict]:
    """A batch of change events with some of :data:`TIME_COLUMNS`, of both tables."""
    columns = draw(st.lists(st.sampled_from(sorted(TIME_COLUMNS)), min_size=3, max_size=7, unique=True))
    tables = st.sampled_from(["orders", "users"])
    return [draw(_time_record(draw(tables), columns, ts_ms_type)) for _ in range(dbz.RECORDS_PER_CASE)]


def _timezone(zone: str, include: str | None = None, exclude: str | None = None) -> dict:
    return {"converted.timezone": zone, "include.list": include, "exclude.list": exclude}


def timezone_cases() -> list[dict]:
    """Every list setting (none; each of :data:`_RULES` as include and as exclude) in two zones, each
    zone in turn; the odd lists, unknown zones, both lists set; and an int32 ``source.ts_ms``, which
    fails where a rule names it."""
    lists = [(None, None)] + [(r, None) for r in _RULES] + [(None, r) for r in _RULES]
    settings = [
        _timezone(_ZONES[(2 * i + turn) % len(_ZONES)], *pair) for i, pair in enumerate(lists) for turn in (0, 1)
    ]
    settings += [_timezone("Asia/Kolkata", odd) for odd in _ODD_RULES]
    settings += [_timezone(zone) for zone in _BAD_ZONES] + [_timezone("UTC", "source:orders", "orders:at")]
    narrow = [_timezone("+08:00"), _timezone("+08:00", "orders:source.ts_ms")]
    type_ = "io.debezium.transforms.TimezoneConverter"
    return [
        pipeline(TIMEZONE, type_, keys, events, True)
        for keys, events in _paired(settings, _time_events()) + _paired(narrow, _time_events("int32"))
    ]


# --- ByLogicalTableRouter -------------------------------------------------------------------

ROUTER = "ByLogicalTableRouter (Debezium)"
#: Physical topic prefixes: plain, and with characters that Avro names cannot hold.
_TOPIC_PREFIXES = ("srv.inv.", "srv-1.inv.", "1srv.inv.", "srv.ïnv.")
#: (topic.regex, topic.replacement): tables merged into one topic, each into its own, named
#: groups, an escaped $, a replacement that empties the topic (the record is left alone), no match (the regex must match the
#: whole topic), a group the regex lacks (the record fails), a regex that is not one, a blank
#: replacement (refused: the key is required).
_TOPIC_ROUTES = [
    (r"(.*)\.inv\.(.*)", "$1.all_tables"),
    (r"(.*)\.(orders|users)", "$1.shop_$2"),
    (r"(?<server>[^.]+)\.[^.]+\.(?<table>.*)", "${server}.merged"),
    (r"(.*)\.inv\.(.*)", r"logical.\$$2"),
    (r"(.*)", "$1_all"),  # replaceFirst: one replacement, though (.*) also matches at the end
    (r"()srv.*orders", "$1"),
    (r"(.*)orders", ""),
    (r"srv", "x"),
    (r"(.*)\.inv\.(.*)", "$3"),
    (r"[unclosed", "x"),
]
#: (key.field.regex, key.field.replacement): none; the table; one that matches one table only
#: (the other keeps its topic); blank; a regex without a replacement (refused).
_KEY_IDENTIFIERS = [
    (None, None),
    (r"(.*)\.inv\.(.*)", "$2"),
    (r"(.*)\.(users)", "u_$2"),
    (" ", None),
    (r"(.*)", None),
]


def _router(index: int) -> dict:
    """The ``index``-th configuration: each option list taken in turn, at its own stride."""
    regex, replacement = _TOPIC_ROUTES[index % len(_TOPIC_ROUTES)]
    key_regex, key_replacement = _KEY_IDENTIFIERS[(index + index // len(_TOPIC_ROUTES)) % len(_KEY_IDENTIFIERS)]
    return {
        "topic.regex": regex,
        "topic.replacement": replacement,
        "key.enforce.uniqueness": (None, "true", "false")[index % 3],
        "key.field.name": (None, "table_id", None, None, "id")[index // 3 % 5],  # id: a key field already
        "key.field.regex": key_regex,
        "key.field.replacement": key_replacement,
        "schema.name.adjustment.mode": (None, "avro", "avro_unicode", "none", "Avro")[index % 5],
        "logical.table.cache.size": (None, "1")[index // 5 % 2],
    }


@st.composite
def _routed_events(draw, with_schemas: bool) -> list[dict]:
    """Change events of one or two tables under one topic prefix; some have no key (a table without
    a primary key)."""
    tables = draw(st.lists(dbz.table(), min_size=1, max_size=2))
    prefix = draw(st.sampled_from(_TOPIC_PREFIXES))
    records = []
    for record in _records(draw, tables, with_schemas):
        keyless = draw(st.integers(0, 5)) == 5
        topic = prefix + record["topic"].removeprefix("srv.inv.")
        records.append({**record, "topic": topic, **({"key": None} if keyless else {})})
    return records


def router_cases() -> list[dict]:
    """Forty-five configurations (:func:`_router`), an unknown adjustment mode and a topic.regex left
    out, over schema'd events; three over schemaless ones (a schemaless key fails the record)."""
    settings = [_router(i) for i in range(45)]
    settings += [{**_router(0), "schema.name.adjustment.mode": "bogus"}, {"topic.replacement": "x"}]
    schemaless = [_router(0), _router(1), {**_router(5), "key.enforce.uniqueness": "false"}]
    type_ = "io.debezium.transforms.ByLogicalTableRouter"
    return [
        pipeline(ROUTER, type_, keys, records, True) for keys, records in _paired(settings, _routed_events(True))
    ] + [pipeline(ROUTER, type_, keys, records, False) for keys, records in _paired(schemaless, _routed_events(False))]


# --- HeaderToValue ---------------------------------------------------------------------------

HEADER_TO_VALUE = "HeaderToValue (Debezium)"
#: Kafka's HeaderFrom$Value first copies envelope fields into headers, with their schemas, as a
#: connector's own headers would have them; HeaderToValue then puts them back under new names.
_COPIED = {"h_op": "op", "h_source": "source", "h_after": "after"}
#: (headers, fields, operation): one header, several in another order, a field the value already
#: has, move and copy (in any case); headers no record has; configurations both refuse (counts that
#: differ, a blank element, a space in a name, an unknown operation).
_HEADER_TO_VALUE = [
    ("h_op", "operation", "copy"),
    ("h_op,h_source,h_after", "op_copy,src,row", "move"),
    ("h_after,h_op", "row,op2", "copy"),
    ("h_source", "source", "move"),
    ("h_op", "op", "copy"),
    ("h_after", "after", "MOVE"),
    ("h_op,h_op", "first,second", "copy"),
    ("nothing", "x", "move"),
    ("h_op,h_source", "a", "copy"),
    ("h_op,,h_source", "a,,b", "copy"),
    ("h op", "a", "copy"),
    ("h_op", "a", "keep"),
]


@st.composite
def _events_with_rows(draw, with_schemas: bool) -> list[dict]:
    """Creates, reads and updates (their ``after`` is a row), values that are no envelope, and some
    headers of their own that HeaderToValue does not name."""
    tables = draw(st.lists(dbz.table(), min_size=1, max_size=2))
    records = []
    while len(records) < dbz.RECORDS_PER_CASE:
        record = draw(dbz.record(draw(st.sampled_from(tables)), with_schemas, None))
        value = None if record["value"] is None else json.loads(base64.b64decode(record["value"]))
        payload = value.get("payload", value) if isinstance(value, dict) else None
        if isinstance(payload, dict) and payload.get("op") in ("d", "t"):
            continue  # a null after: a header of a null value (see the compatibility notes)
        if value is None:
            continue
        records.append(record)
    return records


def header_to_value_cases() -> list[dict]:
    """Each of :data:`_HEADER_TO_VALUE` four times over schema'd events, and once schemaless (a map
    value fails in both)."""
    type_ = "io.debezium.transforms.HeaderToValue"
    copied = {
        "transforms.from.type": "org.apache.kafka.connect.transforms.HeaderFrom$Value",
        "transforms.from.fields": ",".join(_COPIED.values()),
        "transforms.from.headers": ",".join(_COPIED),
        "transforms.from.operation": "copy",
    }
    cases = []
    for with_schemas, times in ((True, 4), (False, 1)):
        settings = [dict(zip(("headers", "fields", "operation"), row)) for row in _HEADER_TO_VALUE] * times
        for keys, records in _paired(settings, _events_with_rows(with_schemas)):
            case = pipeline(HEADER_TO_VALUE, type_, keys, records, with_schemas)
            case["config"] = {**case["config"], **copied, "transforms": f"from,{ALIAS}"}
            cases.append(case)
    return cases


# --- PartitionRouting ------------------------------------------------------------------------

PARTITION = "PartitionRouting (Debezium)"
#: partition.payload.fields values: row fields by state and by ``change`` (a delete's before), every
#: column type but structs (a struct's Java hash changes between JVM runs), source and envelope
#: fields, several at once, names no event has, a path through a field that is no struct, a path
#: through the optional transaction block (null in some events: the record fails), a blank element.
_PAYLOAD_FIELDS = [
    "change.id",
    "after.id",
    "before.id",
    "change.name",
    "change.sku,source.db",
    "change.qty",
    "change.price",
    "change.active",
    "change.tags",
    "change.at",
    "source.table,change.tbl",
    "op",
    "source.lsn",
    "change.missing",
    "nothing.id,change.missing",
    "change.id.deeper",
    "transaction.total_order",
    " change.name , source.ts_ms ",
    "change.id,,op",
]
_HASH_FUNCTIONS = (None, "java", "murmur", "MURMUR", " Java ")
_PARTITION_COUNTS = ("1", "3", "7", "2147483647", "0", "-2")


def partition_cases() -> list[dict]:
    """Each payload-fields value with each hash function, at partition counts taken in turn
    (0 and -2 are refused by both); the changes are SourceRecords in Debezium's JVM, as from a source
    connector (Debezium's PartitionRouting casts to SourceRecord)."""
    settings = [
        {
            "partition.payload.fields": fields,
            "partition.topic.num": _PARTITION_COUNTS[(i * len(_HASH_FUNCTIONS) + j) % len(_PARTITION_COUNTS)],
            "partition.hash.function": function,
        }
        for i, fields in enumerate(_PAYLOAD_FIELDS)
        for j, function in enumerate(_HASH_FUNCTIONS)
    ]
    type_ = "io.debezium.transforms.partitions.PartitionRouting"
    cases = [
        {**pipeline(PARTITION, type_, keys, records, with_schemas), "source_records": True}
        for keys, (with_schemas, records) in _paired(settings, _partition_events())
    ]
    return cases


@st.composite
def _partition_events(draw) -> tuple[bool, list[dict]]:
    with_schemas = draw(st.integers(0, 11)) != 11
    tables = draw(st.lists(dbz.table(), min_size=1, max_size=2))
    return with_schemas, _records(draw, tables, with_schemas)


# --- EventRouter -----------------------------------------------------------------------------

OUTBOX = "EventRouter (Debezium)"
#: Outbox table columns: (field schema, strategy of a value).
_OUTBOX_COLUMNS = {
    "id": (dbz._field("id", "string", False), st.sampled_from(["e-1", "e-2", "7f3a"])),
    "aggregatetype": (dbz._field("aggregatetype", "string", True), st.sampled_from(["Order", "User", "", None])),
    "aggregateid": (dbz._field("aggregateid", "string", False), st.sampled_from(["42", "43", "a b"])),
    "type": (dbz._field("type", "string", False), st.sampled_from(["Created", "Shipped"])),
    "payload": (dbz._field("payload", "string", True), st.sampled_from(['{"n":1}', "", "  ", None, "plain"])),
    "ts": (_time_field("ts", "int64", "io.debezium.time.Timestamp"), st.one_of(st.none(), _MILLIS)),
    "ts_us": (
        _time_field("ts_us", "int64", "io.debezium.time.MicroTimestamp"),
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
        for keys, records in _paired(plain * 4, _outbox_events()) + _paired(enveloped * 4, _outbox_events(True))
    ]


@st.composite
def _outbox_events(draw, one_type: bool = False) -> list[dict]:
    """Changes of an outbox table (creates and reads mostly; updates, deletes, tombstones and values
    that are no envelope too), some columns left out of the table; with ``one_type`` every event has
    the aggregate type ``Order``."""
    optional = draw(st.lists(st.sampled_from(["ts", "ts_us", "version", "part", "extra"]), unique=True))
    columns = ["id", "aggregatetype", "aggregateid", "type", "payload", *optional]
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
            "ts_ms": draw(_MILLIS),
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


#: plugin name -> a function returning its cases.
FAMILIES: dict[str, Callable[[], list[dict]]] = {
    CHANGED: lambda: generate(changed_case(), scaled(24)),
    TIMEZONE: timezone_cases,
    ROUTER: router_cases,
    HEADER_TO_VALUE: header_to_value_cases,
    PARTITION: partition_cases,
    OUTBOX: outbox_cases,
}
