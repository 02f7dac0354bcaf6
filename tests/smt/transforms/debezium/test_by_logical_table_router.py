"""ByLogicalTableRouter: shards of a table routed into one logical topic, keys and schemas renamed."""

import logging

import pytest

from smt.data import Schema, SchemaBuilder, Struct
from smt.errors import ConfigError, DataError
from smt.plugins import default_plugins
from smt.transforms.debezium._schema_names import schema_name_adjuster
from smt.transforms.debezium.by_logical_table_router import ByLogicalTableRouter
from tests.smt.transforms._helpers import conf, make_record
from tests.smt.transforms.debezium._events import ENVELOPE, KEY, ROW, SOURCE, event, row

SHARD = "server.public.customers_shard1"
ROUTE = {"topic.regex": r"(.*)customers_shard(.*)", "topic.replacement": "$1customers_all_shards"}
NEW = "server.public.customers_all_shards"


def router(**overrides):
    return conf(ByLogicalTableRouter, {**ROUTE, **{k.replace("_", "."): v for k, v in overrides.items()}})


def test_the_topic_key_and_envelope_are_renamed_after_the_logical_table():
    record = event("u", before=row(1, "a"), after=row(1, "b"), headers=(("h", 1),), topic=SHARD)
    out = router().apply(record)
    assert out.topic == NEW
    assert out.key_schema.name == NEW + ".Key"
    assert [f.name for f in out.key_schema.fields] == ["id", "__dbz__physicalTableIdentifier"]
    assert out.key_schema.field("__dbz__physicalTableIdentifier").schema == Schema.STRING_SCHEMA
    assert (out.key.get("id"), out.key.get("__dbz__physicalTableIdentifier")) == (1, SHARD)
    assert out.value_schema.name == NEW + ".Envelope"
    assert [f.name for f in out.value_schema.fields] == [f.name for f in ENVELOPE.fields]
    value_schema = out.value_schema.field("after").schema
    assert value_schema is out.value_schema.field("before").schema
    assert (value_schema.name, value_schema.optional) == (NEW + ".Value", True)
    assert [f.name for f in value_schema.fields] == [f.name for f in ROW.fields]
    assert out.value_schema.field("source").schema == SOURCE
    assert (out.value.get("before").get("email"), out.value.get("after").get("email")) == ("a", "b")
    assert out.value.get("op") == "u" and out.value.get("before").schema is value_schema
    assert out.headers == (("h", 1),)


def test_key_field_regex_and_name_make_the_identifier():
    xform = router(
        **{"key.field.regex": r".*_shard(\d+)", "key.field.replacement": "shard-$1", "key.field.name": "src"}
    )
    out = xform.apply(event("c", after=row(1), topic=SHARD))
    assert out.key.get("src") == "shard-1"
    unmatched = router(**{"key.field.regex": r"nomatch", "key.field.replacement": "x"})
    assert unmatched.apply(event("c", after=row(1), topic=SHARD)).key.get("__dbz__physicalTableIdentifier") == SHARD


def test_without_uniqueness_the_key_keeps_its_fields_under_the_new_name():
    out = router(**{"key.enforce.uniqueness": "false"}).apply(event("c", after=row(1), topic=SHARD))
    assert [f.name for f in out.key_schema.fields] == ["id"]
    assert out.key_schema.name == NEW + ".Key"


def test_derived_schemas_are_cached_per_schema_and_topic():
    xform = router()
    for id_ in (1, 2, 3):
        xform.apply(event("c", after=row(id_), topic=SHARD))
    assert (xform.key_schema_cache.misses, xform.envelope_schema_cache.misses) == (1, 1)
    other_shard = xform.apply(event("c", after=row(4), topic="server.public.customers_shard2"))
    assert xform.key_schema_cache.misses == 1  # shards of one logical table share the derived key schema
    assert other_shard.key.get("__dbz__physicalTableIdentifier") == "server.public.customers_shard2"


def test_a_tombstone_is_routed_with_the_new_key_and_keeps_its_null_value():
    key = Struct(KEY).put("id", 5)
    out = router().apply(make_record(None, key=key, key_schema=KEY, topic=SHARD))
    assert (out.topic, out.value, out.value_schema) == (NEW, None, None)
    assert out.key.get("__dbz__physicalTableIdentifier") == SHARD


def test_non_envelope_values_keep_their_value_and_a_null_key_drops_the_key_schema():
    heartbeat_schema = (
        SchemaBuilder.struct()
        .name("io.debezium.connector.common.Heartbeat")
        .field("ts_ms", Schema.INT64_SCHEMA)
        .build()
    )
    heartbeat = Struct(heartbeat_schema).put("ts_ms", 1)
    out = router().apply(make_record(heartbeat, value_schema=heartbeat_schema, key_schema=KEY, topic=SHARD))
    assert (out.topic, out.key, out.key_schema, out.value) == (NEW, None, None, heartbeat)
    schemaless = router().apply(make_record({"after": {"id": 1}}, topic=SHARD))
    assert (schemaless.topic, schemaless.value) == (NEW, {"after": {"id": 1}})


def test_a_schemaless_key_fails_as_debezium_requires_a_struct():
    with pytest.raises(DataError, match=r"Only Struct objects supported for \[Updating schema\], found: dict"):
        router().apply(make_record({"after": {"id": 1}}, key={"id": 1}, topic=SHARD))


def test_unmatched_topics_pass_and_an_empty_new_topic_is_logged(caplog):
    record = event("c", after=row(1))
    assert router().apply(record) is record
    emptying = conf(ByLogicalTableRouter, {"topic.regex": "()(.*)", "topic.replacement": "$1"})
    with caplog.at_level(logging.WARNING):
        assert emptying.apply(record) is record
    assert "Routing regex returned an empty topic name, propagating original record" in caplog.text


@pytest.mark.parametrize(
    ("mode", "topic", "key_name"),
    [
        ("none", "my-db.1st", "my-db.1st.Key"),
        ("avro", "my-db.1st", "my_db.1st.Key"),
        ("AVRO", "1db.t", "_1db.t.Key"),
        ("avro_unicode", "my-db.a_b", "my_u002ddb.a_u005fb.Key"),
        ("avro_unicode", "1db.t", "_u0031db.t.Key"),
    ],
)
def test_schema_name_adjustment_mode(mode, topic, key_name):
    xform = conf(
        ByLogicalTableRouter, {"topic.regex": ".*", "topic.replacement": topic, "schema.name.adjustment.mode": mode}
    )
    out = xform.apply(event("c", after=row(1)))
    assert out.key_schema.name == key_name
    assert out.value_schema.name == key_name[: -len(".Key")] + ".Envelope"


def test_avro_unicode_escapes_each_utf16_unit_and_keeps_three_digit_codes():
    adjust = schema_name_adjuster("avro_unicode")
    assert adjust("a\u00e9") == "a_u00e9"
    assert adjust("a\u0101") == "a_u101"
    assert adjust("a\U0001f600") == "a_ud83d_ude00"
    assert schema_name_adjuster("avro")("a\U0001f600") == "a__"


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"topic.replacement": "x"}, r"transforms\.t\.topic\.regex"),
        ({"topic.regex": "x"}, r"transforms\.t\.topic\.replacement"),
        ({**ROUTE, "topic.replacement": " "}, r"transforms\.t\.topic\.replacement.*A value is required"),
        ({**ROUTE, "topic.regex": ""}, r"transforms\.t\.topic\.regex.*A value is required"),
        ({**ROUTE, "topic.regex": "("}, r"transforms\.t\.topic\.regex.*A valid regular expressions is expected"),
        ({**ROUTE, "key.field.regex": "[a"}, r"transforms\.t\.key\.field\.regex.*A valid regular expressions"),
        (
            {**ROUTE, "key.field.regex": "(.*)", "key.field.replacement": " "},
            r"transforms\.t\.key\.field\.replacement.*must be non-empty if key\.field\.regex is set",
        ),
        ({**ROUTE, "schema.name.adjustment.mode": "avro2"}, r"transforms\.t\.schema\.name\.adjustment\.mode"),
        ({**ROUTE, "logical.table.cache.size": "big"}, r"transforms\.t\.logical\.table\.cache\.size"),
    ],
)
def test_config_rejections_name_the_key(props, message):
    with pytest.raises(ConfigError, match=message):
        conf(ByLogicalTableRouter, props)


def test_registered_under_debezium_class_name():
    found = default_plugins().get("transform", "io.debezium.transforms.ByLogicalTableRouter")
    assert found is ByLogicalTableRouter
