"""Debezium oracle cases for TimezoneConverter: change events with every kind of time column, in many zones, with every kind of rule."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.oracle import _debezium_cases as dbz
from tests.oracle._debezium_other._pipeline import paired, pipeline

TIMEZONE = "TimezoneConverter (Debezium)"
#: Instants (epoch milliseconds) whose UTC wall-clock reading falls in a gap or an overlap of
#: New York, London or Lord Howe (a 30-minute shift), midnight, the epoch and before it.
_EDGEMILLIS = (
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
MILLIS = st.one_of(st.sampled_from(_EDGEMILLIS), st.integers(-(10**11), 2 * 10**12))
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


def time_field(field: str, type_: str, name: str | None, default: Any = None) -> dict:
    extra = {"name": name, "version": 1} if name else {}
    return dbz._field(field, type_, True, default, **extra)


#: Row columns of time types: (field schema, strategy of a non-null value).
TIME_COLUMNS = {
    "at": (time_field("at", "int64", "io.debezium.time.Timestamp"), MILLIS),
    "at_d": (time_field("at_d", "int64", "io.debezium.time.Timestamp", 1_710_037_800_000), MILLIS),
    "at_us": (
        time_field("at_us", "int64", "io.debezium.time.MicroTimestamp"),
        st.builds(lambda ms, us: ms * 1000 + us, MILLIS, st.sampled_from([0, 1, 999, -500])),
    ),
    "at_ns": (
        time_field("at_ns", "int64", "io.debezium.time.NanoTimestamp"),
        st.builds(lambda ms, ns: ms * 1_000_000 + ns, MILLIS, st.sampled_from([0, 1, 999_999])),
    ),
    "at_k": (time_field("at_k", "int64", "org.apache.kafka.connect.data.Timestamp"), MILLIS),
    "zts": (time_field("zts", "string", "io.debezium.time.ZonedTimestamp"), _ZONED_TIMESTAMPS),
    "zt": (time_field("zt", "string", "io.debezium.time.ZonedTime"), _ZONED_TIMES),
    "day": (time_field("day", "int32", "io.debezium.time.Date"), st.integers(-1000, 20000)),
    "day_k": (time_field("day_k", "int32", "org.apache.kafka.connect.data.Date"), st.integers(-1000, 20000)),
    "n": (time_field("n", "int64", None), MILLIS),
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
    millis = draw(MILLIS) if ts_ms_type == "int64" else draw(st.integers(0, 10**6))
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
        "ts_ms": draw(MILLIS),
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
        for keys, events in paired(settings, _time_events()) + paired(narrow, _time_events("int32"))
    ]
