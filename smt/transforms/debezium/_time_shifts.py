"""The conversions Debezium's TimezoneConverter applies, one per kind of time value.

Timestamps (Debezium's Timestamp, MicroTimestamp, NanoTimestamp and Kafka's Timestamp) keep
their UTC wall-clock reading and take the target zone's offset at that wall-clock time, so
12:00 UTC in a +08:00 zone becomes 04:00 UTC. ZonedTimestamp and ZonedTime strings are moved to
the zone's offset, keeping the instant (a ZonedTime takes the offset the zone has now). The
source block's ``ts_ms``/``ts_us``/``ts_ns`` go the other way: the offset at that instant is
added. Where a wall-clock time falls in a gap or overlap, the offset before the transition is
used (Java's ``ZoneRules.getOffset(LocalDateTime)``, Python's ``fold=0``).
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Callable

from smt.data.logical import EPOCH
from smt.data.logical_names import TIMESTAMP
from smt.errors import DataError

MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp"
NANO_TIMESTAMP = "io.debezium.time.NanoTimestamp"
DEBEZIUM_TIMESTAMP = "io.debezium.time.Timestamp"
ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp"
ZONED_TIME = "io.debezium.time.ZonedTime"
#: Date and time-of-day types: Debezium logs and skips them.
UNSUPPORTED = frozenset(
    {
        "io.debezium.time.Date",
        "io.debezium.time.MicroTime",
        "io.debezium.time.NanoTime",
        "io.debezium.time.Time",
        "org.apache.kafka.connect.data.Date",
        "org.apache.kafka.connect.data.Time",
    }
)
EPOCH_FIELDS = {"ts_ms": 1_000, "ts_us": 1_000_000, "ts_ns": 1_000_000_000}  # units per second
_NAIVE_EPOCH = EPOCH.replace(tzinfo=None)
_OFFSET = r"(?P<offset>[Zz]|[+-]\d{2}:\d{2}(?::\d{2})?)"
_TIME = r"(?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:\.(?P<fraction>\d{1,9}))?)?"
_ZONED_TIMESTAMP = re.compile(r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})[Tt]" + _TIME + _OFFSET)
_ZONED_TIME = re.compile(_TIME + _OFFSET)


def _offset_at_wall_clock(zone: _dt.tzinfo, wall_clock: _dt.datetime) -> _dt.timedelta:
    return wall_clock.replace(tzinfo=zone, fold=0).utcoffset()


def _offset_at_instant(zone: _dt.tzinfo, instant: _dt.datetime) -> _dt.timedelta:
    return instant.astimezone(zone).utcoffset()


def _whole_seconds(delta: _dt.timedelta) -> int:
    return delta.days * 86_400 + delta.seconds


def _shift_epoch_count(per_second: int) -> Callable[[_dt.tzinfo, int], int]:
    def shift(zone: _dt.tzinfo, count: int) -> int:
        wall_clock = _NAIVE_EPOCH + _dt.timedelta(seconds=count // per_second)
        return count - _whole_seconds(_offset_at_wall_clock(zone, wall_clock)) * per_second

    return shift


def _shift_kafka_timestamp(zone: _dt.tzinfo, value: _dt.datetime) -> _dt.datetime:
    utc = value.astimezone(_dt.timezone.utc) if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)
    return utc - _offset_at_wall_clock(zone, utc.replace(tzinfo=None))


def _parse_offset(text: str) -> _dt.timedelta:
    if text in ("Z", "z"):
        return _dt.timedelta(0)
    sign = -1 if text[0] == "-" else 1
    parts = [int(p) for p in text[1:].split(":")]
    return sign * _dt.timedelta(hours=parts[0], minutes=parts[1], seconds=parts[2] if len(parts) > 2 else 0)


def _format_offset(offset: _dt.timedelta) -> str:
    # Java's appendOffsetId: Z for zero, +HH:MM, and :ss only when there are seconds.
    total = _whole_seconds(offset)
    if total == 0:
        return "Z"
    sign, total = ("-", -total) if total < 0 else ("+", total)
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{sign}{hours:02d}:{minutes:02d}" + (f":{seconds:02d}" if seconds else "")


def _format_time(moment: _dt.datetime | _dt.time, fraction: str) -> str:
    # Java's ISO_LOCAL_TIME: seconds always, the fraction without trailing zeros, none when zero.
    digits = fraction.rstrip("0")
    return f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}" + (f".{digits}" if digits else "")


def _shift_zoned_timestamp(zone: _dt.tzinfo, text: str) -> str:
    found = _ZONED_TIMESTAMP.fullmatch(text)
    if found is None:
        raise DataError(f"Text '{text}' could not be parsed as an ISO offset date-time ({ZONED_TIMESTAMP})")
    part = {k: int(v) for k, v in found.groupdict(default="0").items() if k not in ("offset", "fraction")}
    wall_clock = _dt.datetime(part["year"], part["month"], part["day"], part["hour"], part["minute"], part["second"])
    old_offset = _parse_offset(found["offset"])
    new_offset = _offset_at_wall_clock(zone, wall_clock)  # Debezium asks at the text's own wall-clock time
    moved = wall_clock - old_offset + new_offset
    return f"{moved.date().isoformat()}T{_format_time(moved, found['fraction'] or '')}{_format_offset(new_offset)}"


def _shift_zoned_time(zone: _dt.tzinfo, text: str) -> str:
    found = _ZONED_TIME.fullmatch(text)
    if found is None:
        raise DataError(f"Text '{text}' could not be parsed as an ISO offset time ({ZONED_TIME})")
    seconds = int(found["hour"]) * 3600 + int(found["minute"]) * 60 + int(found["second"] or 0)
    old_offset = _parse_offset(found["offset"])
    new_offset = _offset_at_instant(zone, _dt.datetime.now(_dt.timezone.utc))
    moved = (seconds - _whole_seconds(old_offset) + _whole_seconds(new_offset)) % 86_400
    clock = _dt.time(moved // 3600, moved // 60 % 60, moved % 60)
    return _format_time(clock, found["fraction"] or "") + _format_offset(new_offset)


#: Schema name -> how its value moves to the zone.
SHIFTS: dict[str, Callable[[_dt.tzinfo, Any], Any]] = {
    DEBEZIUM_TIMESTAMP: _shift_epoch_count(1_000),
    MICRO_TIMESTAMP: _shift_epoch_count(1_000_000),
    NANO_TIMESTAMP: _shift_epoch_count(1_000_000_000),
    TIMESTAMP: _shift_kafka_timestamp,
    ZONED_TIMESTAMP: _shift_zoned_timestamp,
    ZONED_TIME: _shift_zoned_time,
}


def shift_epoch_field(zone: _dt.tzinfo, name: str, count: int) -> int:
    """A source block's ``ts_ms``/``ts_us``/``ts_ns`` with the zone's offset at that instant added."""
    per_second = EPOCH_FIELDS[name]
    instant = EPOCH + _dt.timedelta(seconds=count // per_second)
    return count + _whole_seconds(_offset_at_instant(zone, instant)) * per_second
