"""EventRouter: turn the inserts of an outbox table into the events they carry, routed by aggregate type."""

from __future__ import annotations

import logging

from smt.config import ConfigDef, ConfigType, Importance, one_of
from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import DataError
from smt.java_regex import compile_java_regex
from smt.reconfigure import Reconfigurable
from smt.record import Record
from smt.transform import Transform
from smt.transforms._requirements import require_struct
from smt.transforms._schema_cache import SchemaCache
from smt.transforms.debezium._envelope import ENVELOPE_SUFFIX
from smt.transforms.debezium.extract_new_record_state import DEBEZIUM_PACKAGE
from smt.transforms.debezium.outbox._json_payload import ExpansionFailed, expand_json_payload, parse_json_payload
from smt.transforms.debezium.outbox._placements import check_placements, parse_placements
from smt.transforms.regex_router import RegexRouter

_LOG = logging.getLogger(__name__)
PAYLOAD = "payload"
# Debezium's ts fields of the event-timestamp column and how many of their units make a millisecond.
_TIMESTAMP_UNITS = {
    "io.debezium.time.Timestamp": 1,
    "io.debezium.time.MicroTimestamp": 1_000,
    "io.debezium.time.NanoTimestamp": 1_000_000,
}


def _regex(value: str) -> None:
    try:
        compile_java_regex(value)
    except ValueError as exc:
        raise ValueError(f"A valid regular expressions is expected, but {exc}") from None


def _java_trim(text: str) -> str:
    return text.strip("".join(chr(c) for c in range(0x21)))  # String.trim: every char <= U+0020


def _java_quotient(value: int, divisor: int) -> int:
    quotient = abs(value) // divisor
    return -quotient if value < 0 else quotient  # Java's long division truncates toward zero


class EventRouter(Reconfigurable, Transform):
    """Route each insert of an outbox table to ``outbox.event.<aggregatetype>``, as its payload.

    The ``after`` row of a create (or snapshot read) becomes a record keyed by
    ``table.field.event.key``, carrying the id header and valued by the payload column: a struct
    ``{payload, <envelope fields>}`` when ``table.fields.additional.placement`` puts columns in
    the envelope, the payload itself otherwise. The topic is ``route.by.field``'s value through
    ``route.topic.regex``/``route.topic.replacement`` (Kafka's RegexRouter). Deletes and
    tombstones are dropped; updates are dropped with a log line or fail the record
    (``table.op.invalid.behavior``); records that are not Debezium envelopes pass unchanged.
    With ``table.expand.json.payload=true`` a JSON string payload becomes a struct whose schema is
    inferred from it, as Debezium infers it (``_json_payload``); a payload that cannot be expanded
    is kept, with a warning. OpenTelemetry tracing is not supported. A value schema is
    derived per payload schema, routed value and schema version (Debezium caches it by payload
    schema or by version alone, so another aggregate type may get the first one's schema name).
    """

    name = "EventRouter"
    aliases = (DEBEZIUM_PACKAGE + "outbox.EventRouter",)
    config_def = (
        ConfigDef()
        .define(
            "table.field.event.id",
            ConfigType.STRING,
            "id",
            None,
            Importance.LOW,
            "The column which contains the event ID within the outbox table.",
        )
        .define(
            "table.field.event.key",
            ConfigType.STRING,
            "aggregateid",
            None,
            Importance.LOW,
            "The column which contains the event key within the outbox table.",
        )
        .define(
            "table.field.event.type",
            ConfigType.STRING,
            "type",
            None,
            Importance.LOW,
            "The column which contains the event type within the outbox table; Debezium 3.6 declares this key but reads it nowhere, so it has no effect.",
        )
        .define(
            "table.field.event.payload",
            ConfigType.STRING,
            "payload",
            None,
            Importance.LOW,
            "The column which contains the event payload within the outbox table.",
        )
        .define(
            "table.field.event.timestamp",
            ConfigType.STRING,
            None,
            None,
            Importance.MEDIUM,
            "A column (Debezium Timestamp, MicroTimestamp or NanoTimestamp) whose value becomes the record timestamp; "
            "null: the change event's ts_ms.",
        )
        .define(
            "table.fields.additional.placement",
            ConfigType.LIST,
            [],
            check_placements,
            Importance.HIGH,
            "Extra columns to add to the event envelope, a header or as the partition: column:placement or "
            "column:placement:alias, with placement envelope, header or partition (an INT32 column).",
        )
        .define(
            "table.field.additional.missing",
            ConfigType.STRING,
            "error",
            one_of("error", "ignore", case_sensitive=False),
            Importance.MEDIUM,
            "When an additional placement column is missing from the row: error fails the record, ignore skips the column.",
        )
        .define(
            "table.field.event.schema.version",
            ConfigType.STRING,
            None,
            None,
            Importance.LOW,
            "An INT32 column whose value becomes the version of the value schema.",
        )
        .define(
            "route.by.field",
            ConfigType.STRING,
            "aggregatetype",
            None,
            Importance.HIGH,
            "The column whose value, through route.topic.regex and route.topic.replacement, becomes the topic.",
        )
        .define(
            "route.topic.regex",
            ConfigType.STRING,
            "(?<routedByValue>.*)",
            _regex,
            Importance.LOW,
            "The regex the route.by.field value must match as a whole; its groups are available to route.topic.replacement.",
        )
        .define(
            "route.topic.replacement",
            ConfigType.STRING,
            "outbox.event.${routedByValue}",
            None,
            Importance.HIGH,
            "The topic the events are routed to; ${routedByValue} is the route.by.field value.",
        )
        .define(
            "route.tombstone.on.empty.payload",
            ConfigType.BOOLEAN,
            False,
            None,
            Importance.HIGH,
            "Whether a null or blank payload becomes a tombstone.",
        )
        .define(
            "table.op.invalid.behavior",
            ConfigType.STRING,
            "warn",
            one_of("warn", "error", "fatal", case_sensitive=False),
            Importance.MEDIUM,
            "What to do with an update of the outbox table: warn or error logs and drops it, fatal fails the record.",
        )
        .define(
            "table.expand.json.payload",
            ConfigType.BOOLEAN,
            False,
            None,
            Importance.MEDIUM,
            "Whether to expand a JSON string payload (one starting with { or [) into a struct whose schema is "
            "inferred from it; a payload that is not JSON is kept as it is, with a warning.",
        )
        .define(
            "table.json.payload.null.behavior",
            ConfigType.STRING,
            "ignore",
            one_of("ignore", "optional_bytes", case_sensitive=False),
            Importance.MEDIUM,
            "With table.expand.json.payload: ignore leaves a null JSON field out of the schema, optional_bytes "
            "keeps it as an optional bytes field holding null.",
        )
    )

    def configure(self, configs, context=None) -> None:
        super().configure(configs, context)
        config = self.config
        self.id_column = config["table.field.event.id"]
        self.key_column = config["table.field.event.key"]
        self.payload_column = config["table.field.event.payload"]
        self.timestamp_column = config["table.field.event.timestamp"]
        self.version_column = config["table.field.event.schema.version"]
        self.route_by = config["route.by.field"]
        self.tombstone_on_empty = config["route.tombstone.on.empty.payload"]
        self.on_update = config["table.op.invalid.behavior"].strip().lower()
        self.expand_json = config["table.expand.json.payload"]
        self.bytes_for_null = config["table.json.payload.null.behavior"].strip().lower() == "optional_bytes"
        self.ignore_missing = config["table.field.additional.missing"].strip().lower() == "ignore"
        self.additional = parse_placements(config["table.fields.additional.placement"])
        self.only_payload = not any(field.placement == "envelope" for field in self.additional)
        self.router = RegexRouter()
        self.router.configure(
            {"regex": config["route.topic.regex"], "replacement": config["route.topic.replacement"]}, self.context
        )
        self.schema_cache = SchemaCache(10_000)

    def apply(self, record: Record) -> Record | None:
        if record.value is None:
            return None  # Debezium drops tombstones
        schema = record.value_schema
        if schema is None or schema.name is None or not schema.name.endswith(ENVELOPE_SUFFIX):
            return record
        envelope = require_struct(record.value, "Detect Debezium Operation")
        op = envelope.get_string("op")
        if op == "d":
            return None
        if op == "u":
            return self._unexpected_update(record)
        event = require_struct(envelope.get("after"), "Read Outbox Event")
        return self._route(record, envelope, event)

    def _unexpected_update(self, record: Record) -> None:
        if self.on_update == "fatal":
            raise DataError(f"Unexpected update message received {record.key}, fail.")
        log = _LOG.error if self.on_update == "error" else _LOG.warning
        log("Unexpected update message received %s and ignored", record.key)
        return None

    def _route(self, record: Record, envelope: Struct, event: Struct) -> Record:
        event_schema = event.schema
        payload_field = event_schema.field(self.payload_column)
        if payload_field is None:
            raise DataError(f"Unable to find payload field {self.payload_column} in event")
        timestamp = self._timestamp(envelope, event)
        event_id = event.get(self.id_column)
        headers = record.headers + (("id", event_id),)
        payload = event.get(payload_field)
        routed_by = event.get_string(self.route_by)
        if routed_by is None:
            raise DataError(f"the {self.route_by} column (route.by.field) is null, so the event has no topic")
        payload_schema = payload_field.schema
        if self.expand_json:
            payload_schema, payload = self._expanded(record, payload_schema, payload)
        value_schema, value = payload_schema, payload
        if not self.only_payload:
            version = event.get_int32(self.version_column) if self.version_column is not None else None
            value_schema = self.schema_cache.get((payload_schema, event_schema, routed_by, version), self._value_schema)
            value = Struct(value_schema).put(PAYLOAD, payload)
        partition = None
        for field in self.additional:
            if self.ignore_missing and event_schema.field(field.column) is None:
                continue
            if field.placement == "envelope":
                value.put(field.alias, event.get(field.column))
            elif field.placement == "header":
                headers += ((field.alias, event.get(field.column)),)
            else:
                partition = event.get_int32(field.column)
        if self.tombstone_on_empty and (payload is None or (isinstance(payload, str) and not _java_trim(payload))):
            value_schema, value = None, None
        key = event.get(self.key_column)
        key_field = event_schema.field(self.key_column)
        routed = record.replace(
            topic=routed_by,
            partition=partition,
            key=key,
            key_schema=key_field.schema if key_field is not None else Schema.STRING_SCHEMA,
            value=value,
            value_schema=value_schema,
            timestamp=timestamp,
            headers=headers,
        )
        return self.router.apply(routed)

    def _expanded(self, record: Record, schema: Schema | None, payload: object) -> tuple[Schema | None, object]:
        """The payload and its schema once expanded; what Debezium keeps when it cannot expand it."""
        if not isinstance(payload, str):
            _LOG.warning("Expand JSON payload is turned on but payload is not a string in %s", record.key)
            return schema, payload
        try:
            document = parse_json_payload(payload)
            inferred, value, built = expand_json_payload(document, self.payload_column, self.bytes_for_null)
        except ExpansionFailed as exc:
            _LOG.warning("JSON expansion failed for the event keyed %s: %s", record.key, exc)
            return schema, payload
        if not built:
            # Debezium has already replaced the schema when building the value fails: the string keeps it.
            _LOG.warning("JSON expansion failed for the event keyed %s: the value does not fit its schema", record.key)
            return inferred, payload
        return inferred, value

    def _timestamp(self, envelope: Struct, event: Struct) -> int | None:
        if self.timestamp_column is None:
            return envelope.get_int64("ts_ms")
        field = event.schema.field(self.timestamp_column)
        if field is None:
            raise DataError(f"Unable to find timestamp field {self.timestamp_column} in event")
        value = event.get_int64(self.timestamp_column)
        if value is None:
            return envelope.get_int64("ts_ms")
        name = field.schema.name
        if name is None:
            raise DataError(
                f"Unsupported field type {field.schema.type} (without logical schema name) for event timestamp"
            )
        if name not in _TIMESTAMP_UNITS:
            raise DataError(f"Unsupported field type {name} for event timestamp")
        return _java_quotient(value, _TIMESTAMP_UNITS[name])

    def _value_schema(self, key: tuple[Schema, Schema, str, int | None]) -> Schema:
        payload_schema, event_schema, routed_by, version = key
        builder = SchemaBuilder.struct().name(_schema_name(event_schema.name, routed_by)).field(PAYLOAD, payload_schema)
        for field in self.additional:
            if field.placement != "envelope":
                continue
            column = event_schema.field(field.column)
            if column is None:
                if not self.ignore_missing:
                    raise DataError(f"Unable to find field {field.column} in event")
                continue
            builder.field(field.alias, column.schema)
        if version is not None:
            builder.version(version)
        return builder.build()


def _schema_name(event_schema_name: str | None, routed_by: str) -> str:
    """``server.public.outbox.Value`` routed by ``Order`` is ``server.public.outbox.Order.Value``."""
    if event_schema_name is None:
        return routed_by
    head, dot, tail = event_schema_name.rpartition(".")
    return f"{head}.{routed_by}.{tail}" if dot else f"{routed_by}.{event_schema_name}"


__all__ = ["EventRouter"]
