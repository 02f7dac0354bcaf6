"""TimezoneConverter: move the time values of Debezium change events to one time zone."""

from __future__ import annotations

import datetime as _dt
import logging
import re
import zoneinfo

from smt.config import REQUIRED, ConfigDef, ConfigType, Importance
from smt.data import Struct, Type
from smt.errors import ConfigError, DataError
from smt.java_regex import compile_java_regex
from smt.record import Record
from smt.transform import Transform
from smt.transforms._requirements import require_struct
from smt.transforms.debezium._envelope import ENVELOPE_SUFFIX
from smt.transforms.debezium._time_shifts import EPOCH_FIELDS, SHIFTS, UNSUPPORTED, shift_epoch_field
from smt.transforms.debezium.extract_new_record_state import DEBEZIUM_PACKAGE

_LOG = logging.getLogger(__name__)
_OFFSET = re.compile(r"[+-]\d{2}:\d{2}(:\d{2})?")
# Debezium checks a list's toString() ("[a, b]") against this pattern (\w is ASCII in Java).
_LIST = re.compile(r"\[(source|topic|[\".\w\s_]+):([\".\w\s_]+(?::[\".\w\s_]+)?(?:,|]$))+", re.ASCII)
_RULES = '"source:<tablename>:<fieldnames>", "topic:<topicname>:<fieldnames>", "<matchname>:<fieldnames>"'
_TIMEZONE_HELP = (
    "Invalid timezone format. Please specify either a geographic timezone (e.g. America/Los_Angeles) "
    "or a UTC offset in the format of +/-hh:mm, (e.g. +08:00)."
)
_STATES = ("before", "after")
ALL, INCLUDE, EXCLUDE = "all", "include", "exclude"


def _required(value: str) -> None:
    if not value.strip():
        raise ValueError("A value is required")


def _list_of_regex(value: list[str]) -> None:
    for item in value:
        try:
            compile_java_regex(item)
        except ValueError as exc:
            raise ValueError(f"A comma-separated list of valid regular expressions is expected, but {exc}") from None


_RULES_DOC = (
    "source:<table> (every time field of that table's events), source:<table>:<field>, topic:<topic>, "
    "topic:<topic>:<field>, or <table or topic>:<field>; a field is before.<name>, after.<name>, "
    "source.<name> or a bare name for both before and after."
)


class TimezoneConverter(Transform):
    """Convert the timestamps of Debezium change events to ``converted.timezone``.

    Without lists every timestamp field of ``before`` and ``after`` is converted; ``include.list``
    converts only the events (and fields) its rules name, ``exclude.list`` all but those. The
    source block's ``ts_ms``/``ts_us``/``ts_ns`` are converted only when a rule names them
    (``source.ts_ms``). Types: Debezium's Timestamp, MicroTimestamp, NanoTimestamp, ZonedTimestamp,
    ZonedTime and Kafka's Timestamp; dates and times of day are logged and skipped. Tombstones and
    values that are not envelopes pass unchanged. Zone names are the IANA names Python knows;
    offsets beyond +/-18:00 are refused at configure time (Debezium fails at apply time).
    """

    name = "TimezoneConverter"
    aliases = (DEBEZIUM_PACKAGE + "TimezoneConverter",)
    config_def = (
        ConfigDef()
        .define(
            "converted.timezone",
            ConfigType.STRING,
            REQUIRED,
            _required,
            Importance.HIGH,
            "The time zone the time fields are converted to: a geographic name (America/Los_Angeles) or a "
            "UTC offset +/-hh:mm (+08:00).",
        )
        .define(
            "include.list",
            ConfigType.LIST,
            [],
            _list_of_regex,
            Importance.HIGH,
            "Rules naming the events and fields to convert: " + _RULES_DOC,
        )
        .define(
            "exclude.list",
            ConfigType.LIST,
            [],
            _list_of_regex,
            Importance.HIGH,
            "Rules naming the events and fields not to convert, written as for include.list.",
        )
    )

    def input_fields(self) -> frozenset[str]:
        return frozenset({"value", "topic"})

    def changed_fields(self) -> frozenset[str]:
        return frozenset({"value"})

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        prefix = self.context.prefix
        include, exclude = (_debezium_list(configs.get(key)) for key in ("include.list", "exclude.list"))
        for key, rules in (("include", include), ("exclude", exclude)):
            if rules and not _LIST.fullmatch("[" + ", ".join(rules) + "]"):
                raise ConfigError.for_key(
                    f"{prefix}{key}.list",
                    f"Invalid {key} list format. Please specify a list of rules in the format of {_RULES}",
                    ",".join(rules),
                )
            if rules:
                break  # Debezium checks the include list, or else the exclude list
        self.zone = _zone(self.config["converted.timezone"], prefix + "converted.timezone")
        if include and exclude:
            raise ConfigError.for_key(
                prefix + "exclude.list", "Both include and exclude lists are specified. Please specify only one."
            )
        self.mode = INCLUDE if include else EXCLUDE if exclude else ALL
        self.topics, self.tables, self.unprefixed = _collect(exclude or include)

    def apply(self, record: Record) -> Record:
        schema = record.value_schema
        if record.value is None or schema is None or schema.name is None or not schema.name.endswith(ENVELOPE_SUFFIX):
            return record
        envelope = require_struct(record.value, "timezone conversion")
        table = _table(envelope)
        choice = self._choose(table, record.topic)
        if choice is None:
            return record
        return record.replace(value=self._convert(envelope, *choice))

    def _choose(self, table: str | None, topic: str) -> tuple[str, frozenset[str]] | None:
        """Which fields to convert: (mode, field names), or None for none."""
        if self.mode == ALL:
            return ALL, frozenset()
        found = self._match(table, topic)
        if self.mode == INCLUDE:
            return None if found is None else (INCLUDE, found) if found else (ALL, found)
        if found is None:
            return ALL, frozenset()
        return (EXCLUDE, found) if found else None

    def _match(self, table: str | None, topic: str) -> frozenset[str] | None:
        for names, key in (
            (self.topics, topic),
            (self.tables, table),
            (self.unprefixed, topic),
            (self.unprefixed, table),
        ):
            if key in names:
                return names[key]
        return None

    def _convert(self, envelope: Struct, mode: str, fields: frozenset[str]) -> Struct:
        wanted: dict[str, set[str]] = {"before": set(), "after": set(), "source": set()}
        for field in fields:
            block, dot, name = field.partition(".")
            if dot and block in wanted:
                wanted[block].add(name)
            else:
                wanted["before"].add(field)
                wanted["after"].add(field)
        out = _copy(envelope)
        for block in ("before", "after", "source"):
            part = _block(envelope, block)
            if part is None or (block == "source" and not wanted["source"]):
                continue
            out.put(block, self._convert_block(block, part, mode, wanted[block]))
        return out

    def _convert_block(self, block: str, part: Struct, mode: str, names: set[str]) -> Struct:
        out = _copy(part)
        for field in part.schema.fields:
            schema_name = field.schema.name
            epoch = block == "source" and field.name in EPOCH_FIELDS
            if schema_name is None and not epoch:
                continue
            chosen = mode == ALL or (mode == INCLUDE) == (field.name in names)
            if not chosen:
                continue
            if schema_name in UNSUPPORTED:
                _LOG.warning(
                    "Skipping conversion for unsupported logical type: %s for field: %s", schema_name, field.name
                )
                continue
            value = part.get(field)
            if value is None:
                continue
            if schema_name is not None and schema_name in SHIFTS:
                out.put(field, SHIFTS[schema_name](self.zone, value))
            elif schema_name is None:
                if field.schema.type is not Type.INT64:
                    raise DataError("Epoch field value should be a java.lang.Long")
                out.put(field, shift_epoch_field(self.zone, field.name, value))
        return out


def _debezium_list(raw) -> list[str]:
    """A list key as Debezium's Configuration.getList reads it: Java's ``String.split(",")``, each item
    trimmed. Unlike Kafka's LIST, an empty text is one empty rule (which the rule pattern refuses) and
    trailing empty items are dropped (``orders:at,`` is one rule)."""
    if raw is None:
        return []
    if isinstance(raw, (list, tuple)):
        return [str(item).strip() for item in raw]
    items = str(raw).split(",")
    while len(items) > 1 and items[-1] == "":
        items.pop()
    if items == [""] and "," in str(raw):
        items = []  # Java: "," splits into nothing
    return [item.strip() for item in items]


def _zone(name: str, key: str) -> _dt.tzinfo:
    if _OFFSET.fullmatch(name):
        sign = -1 if name[0] == "-" else 1
        parts = [int(p) for p in name[1:].split(":")]
        offset = _dt.timedelta(hours=parts[0], minutes=parts[1], seconds=parts[2] if len(parts) > 2 else 0)
        if parts[1] > 59 or (len(parts) > 2 and parts[2] > 59) or offset > _dt.timedelta(hours=18):
            raise ConfigError.for_key(key, "an offset must be from -18:00 to +18:00", name)
        return _dt.timezone(sign * offset)
    try:
        return zoneinfo.ZoneInfo(name)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        raise ConfigError.for_key(key, _TIMEZONE_HELP, name) from None


def _collect(rules: list[str]) -> tuple[dict, dict, dict]:
    """Debezium's rule tables: topic, table and unprefixed match names, each to its field names.

    A rule without ``source:``/``topic:`` takes the prefix of the rule before it (Debezium's
    ``commonPrefix``); the prefix is recognised in any case but sorted into a table only when lower-case.
    """
    tables: dict[str, dict[str, set[str]]] = {"topic": {}, "source": {}, "": {}}
    common = None
    for rule in rules:
        parts = rule.split(":")
        while parts and parts[-1] == "":  # Java's split drops trailing empty strings
            parts.pop()
        prefix, match, field = None, None, None
        if len(parts) == 1:
            match = parts[0]
        elif len(parts) in (2, 3):
            if parts[0].lower() in ("source", "topic"):
                prefix, match = parts[0], parts[1]
                field = parts[2] if len(parts) == 3 else None
            else:
                match, field = parts[0], parts[1]
        if prefix is not None:
            common = prefix
        fields = tables[common if common in ("topic", "source") else ""].setdefault(match, set())
        if field is not None:
            fields.add(field)
    frozen = {kind: {k: frozenset(v) for k, v in names.items()} for kind, names in tables.items()}
    return frozen["topic"], frozen["source"], frozen[""]


def _block(envelope: Struct, name: str) -> Struct | None:
    field = envelope.schema.field(name)
    if field is None or field.schema.type is not Type.STRUCT:
        return None
    return envelope.get(field)


def _table(envelope: Struct) -> str | None:
    source = _block(envelope, "source")
    if source is None:
        return None
    field = source.schema.field("table")
    return source.get(field) if field is not None and field.schema.type is Type.STRING else None


def _copy(struct: Struct) -> Struct:
    # Debezium changes the event in place; a copy leaves the input record as it was.
    out = Struct(struct.schema)
    for field in struct.schema.fields:
        out.put(field, struct.get_without_default(field))
    return out


__all__ = ["TimezoneConverter"]
