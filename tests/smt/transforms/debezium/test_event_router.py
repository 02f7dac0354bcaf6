"""EventRouter on inserts into a PostgreSQL outbox table."""

import logging
import pickle

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError, DataError
from smt.plugins import default_plugins
from smt.transforms.debezium.outbox.event_router import EventRouter
from tests.smt.transforms._helpers import conf, make_record
from tests.smt.transforms.debezium._events import envelope_schema


def timestamp_schema(name):
    return SchemaBuilder.int64().name(name).optional().build()


OUTBOX = (
    SchemaBuilder.struct()
    .name("server.public.outboxevent.Value")
    .field("id", Schema.STRING_SCHEMA)
    .field("aggregatetype", Schema.STRING_SCHEMA)
    .field("aggregateid", Schema.STRING_SCHEMA)
    .field("type", Schema.STRING_SCHEMA)
    .field("payload", Schema.OPTIONAL_STRING_SCHEMA)
    .field("created", timestamp_schema("io.debezium.time.MicroTimestamp"))
    .field("plain_ts", Schema.OPTIONAL_INT64_SCHEMA)
    .field("version", Schema.OPTIONAL_INT32_SCHEMA)
    .field("shard", Schema.OPTIONAL_INT32_SCHEMA)
    .optional()
    .build()
)
ENVELOPE = envelope_schema(OUTBOX)


def outbox_row(payload='{"total": 3}', aggregate="Order", created=-1_500_999):
    row = Struct(OUTBOX).put("id", "ev-1").put("aggregatetype", aggregate).put("aggregateid", "order-9")
    return row.put("type", "OrderCreated").put("payload", payload).put("created", created).put("plain_ts", 5)


def insert(row=None, op="c", headers=(("trace", b"t"),)):
    after = outbox_row() if row is None else row
    value = Struct(ENVELOPE).put("op", op).put("ts_ms", 1700).put("after", after)
    if op in ("u", "d"):
        value.put("before", after)
    return make_record(value, value_schema=ENVELOPE, topic="server.public.outboxevent", partition=3, headers=headers)


def router(**props):
    return conf(EventRouter, {k.replace("_", "."): v for k, v in props.items()})


def test_an_insert_becomes_its_payload_routed_by_aggregate_type():
    out = router().apply(insert())
    assert out.topic == "outbox.event.Order"
    assert (out.key, out.key_schema) == ("order-9", Schema.STRING_SCHEMA)
    assert (out.value, out.value_schema) == ('{"total": 3}', Schema.OPTIONAL_STRING_SCHEMA)
    assert out.headers == (("trace", b"t"), ("id", "ev-1"))
    assert (out.timestamp, out.partition) == (1700, None)  # the event's ts_ms; Kafka picks the partition


def test_snapshot_reads_are_routed_too():
    assert router().apply(insert(op="r")).topic == "outbox.event.Order"


def test_envelope_header_and_partition_placements():
    xform = router(
        **{"table.fields.additional.placement": "type:envelope:eventType, aggregateid:header, shard:partition"}
    )
    row = outbox_row().put("shard", 2)
    out = xform.apply(insert(row))
    assert out.value_schema.name == "server.public.outboxevent.Order.Value"
    assert [f.name for f in out.value_schema.fields] == ["payload", "eventType"]
    assert (out.value.get("payload"), out.value.get("eventType")) == ('{"total": 3}', "OrderCreated")
    assert out.headers[-2:] == (("id", "ev-1"), ("aggregateid", "order-9"))
    assert out.partition == 2


def test_value_schemas_are_named_per_routed_value_and_versioned():
    xform = router(
        **{"table.fields.additional.placement": "type:envelope", "table.field.event.schema.version": "version"}
    )
    orders = xform.apply(insert(outbox_row().put("version", 4)))
    customers = xform.apply(insert(outbox_row(aggregate="Customer").put("version", 4)))
    assert (orders.value_schema.name, orders.value_schema.version) == ("server.public.outboxevent.Order.Value", 4)
    assert customers.value_schema.name == "server.public.outboxevent.Customer.Value"
    assert xform.apply(insert(outbox_row().put("version", 4))).value_schema is orders.value_schema


def test_missing_additional_columns_fail_or_are_ignored():
    with pytest.raises(DataError, match="Unable to find field nothere in event"):
        router(**{"table.fields.additional.placement": "nothere:envelope"}).apply(insert())
    ignoring = router(
        **{
            "table.fields.additional.placement": "nothere:envelope,type:header",
            "table.field.additional.missing": "ignore",
        }
    )
    out = ignoring.apply(insert())
    assert [f.name for f in out.value_schema.fields] == ["payload"]
    assert out.headers[-1] == ("type", "OrderCreated")


@pytest.mark.parametrize(
    ("column", "expected"),
    [("created", -1500), (None, 1700)],  # micros to millis truncate toward zero, as Java divides
)
def test_event_timestamp_column(column, expected):
    props = {} if column is None else {"table.field.event.timestamp": column}
    assert router(**props).apply(insert()).timestamp == expected
    if column:
        assert router(**props).apply(insert(outbox_row(created=None))).timestamp == 1700  # null: the event's ts_ms


def test_event_timestamp_columns_without_a_timestamp_type_fail():
    with pytest.raises(
        DataError, match=r"Unsupported field type INT64 \(without logical schema name\) for event timestamp"
    ):
        router(**{"table.field.event.timestamp": "plain_ts"}).apply(insert())
    with pytest.raises(DataError, match="Unable to find timestamp field nope in event"):
        router(**{"table.field.event.timestamp": "nope"}).apply(insert())


def test_route_topic_regex_and_replacement():
    xform = router(**{"route.topic.regex": "(?<kind>Ord)er", "route.topic.replacement": "events.${kind}"})
    assert xform.apply(insert()).topic == "events.Ord"
    assert xform.apply(insert(outbox_row(aggregate="Customer"))).topic == "Customer"  # no match: the value itself


@pytest.mark.parametrize("payload", [None, "  \t"])
def test_empty_payloads_become_tombstones_when_asked(payload):
    out = router(**{"route.tombstone.on.empty.payload": "true"}).apply(insert(outbox_row(payload=payload)))
    assert (out.value, out.value_schema, out.key, out.topic) == (None, None, "order-9", "outbox.event.Order")
    assert router().apply(insert(outbox_row(payload=payload))).value == payload


def test_deletes_and_tombstones_are_dropped_other_values_pass():
    xform = router()
    assert xform.apply(insert(op="d")) is None
    assert xform.apply(make_record(None, value_schema=ENVELOPE)) is None
    heartbeat = make_record({"ts_ms": 1})
    assert xform.apply(heartbeat) is heartbeat


def test_updates_are_dropped_with_a_log_line_or_fail(caplog):
    with caplog.at_level(logging.WARNING):
        assert router().apply(insert(op="u")) is None
        assert router(**{"table.op.invalid.behavior": "ERROR"}).apply(insert(op="u")) is None
    assert [r.levelname for r in caplog.records if "Unexpected update message" in r.message] == ["WARNING", "ERROR"]
    with pytest.raises(DataError, match="Unexpected update message received None, fail."):
        router(**{"table.op.invalid.behavior": "fatal"}).apply(insert(op="u"))


def test_missing_payload_column_and_null_route_fail():
    with pytest.raises(DataError, match="Unable to find payload field body in event"):
        router(**{"table.field.event.payload": "body"}).apply(insert())
    with pytest.raises(DataError, match="the aggregatetype column"):
        schema = SchemaBuilder.struct().field("id", Schema.STRING_SCHEMA).field("payload", Schema.STRING_SCHEMA)
        schema = schema.field("aggregatetype", Schema.OPTIONAL_STRING_SCHEMA).field("aggregateid", Schema.STRING_SCHEMA)
        schema = schema.optional().build()
        envelope = SchemaBuilder.struct().name("x.Envelope").field("after", schema).field("op", Schema.STRING_SCHEMA)
        envelope = envelope.field("ts_ms", Schema.INT64_SCHEMA).build()
        row = Struct(schema).put("id", "1").put("payload", "p").put("aggregateid", "k")
        value = Struct(envelope).put("after", row).put("op", "c").put("ts_ms", 1)
        router().apply(make_record(value, value_schema=envelope))


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"table.fields.additional.placement": "type"},
            r"transforms\.t\.table\.fields\.additional\.placement.*valid String pairs or trios is expected but got: \[type\]",
        ),
        ({"table.fields.additional.placement": "a:b:c:d"}, r"valid String pairs or trios"),
        (
            {"table.fields.additional.placement": "type:body"},
            r"transforms\.t\.table\.fields\.additional\.placement.*placement of type must be one of header, envelope",
        ),
        ({"route.topic.regex": "("}, r"transforms\.t\.route\.topic\.regex.*A valid regular expressions is expected"),
        ({"table.op.invalid.behavior": "ignore"}, r"transforms\.t\.table\.op\.invalid\.behavior"),
        ({"table.field.additional.missing": "skip"}, r"transforms\.t\.table\.field\.additional\.missing"),
        ({"table.expand.json.payload": "maybe"}, r"transforms\.t\.table\.expand\.json\.payload"),
        (
            {"table.json.payload.null.behavior": "drop"},
            r"transforms\.t\.table\.json\.payload\.null\.behavior.*must be one of ignore, optional_bytes",
        ),
    ],
)
def test_config_rejections_name_the_key(props, message):
    with pytest.raises(ConfigError, match=message):
        conf(EventRouter, props)


def test_pickles_by_configuration():
    xform = router(**{"table.fields.additional.placement": "type:envelope"})
    copy = pickle.loads(pickle.dumps(xform))
    assert copy.apply(insert()).value == xform.apply(insert()).value


def test_registered_under_debezium_class_name():
    assert default_plugins().get("transform", "io.debezium.transforms.outbox.EventRouter") is EventRouter
