"""Each deviation explains only what its row says: fed wrong outputs, it explains none of them.

The cases are built by hand (no JVM): Kafka's result, ours, and the twins Kafka would have run.
"""

from __future__ import annotations

import base64
import json

from tests.oracle._deviations import (
    Difference,
    dates_beyond_year_9999,
    deprecated_replace_field_names,
    java17_float_digits,
    map_entry_order,
    rename_collisions,
    tombstone_pass_through,
)

STRING = "org.apache.kafka.connect.storage.StringConverter"
JSON = "org.apache.kafka.connect.json.JsonConverter"
LONG = "org.apache.kafka.connect.converters.LongConverter"


def b64(data: bytes | str | None) -> str | None:
    if data is None:
        return None
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def written(value, key=None, headers=(), topic="t") -> dict:
    return {
        "ok": {
            "topic": topic,
            "partition": 0,
            "timestamp": 1,
            "key": b64(key),
            "value": b64(value),
            "headers": [[n, b64(v)] for n, v in headers],
        }
    }


def pipeline(config: dict, record=None) -> dict:
    record = record or {"topic": "t", "key": None, "value": b64("{}"), "headers": []}
    return {"kind": "pipeline", "plugin": "test", "config": config, "records": [record]}


def converted(plugin: str, converter: str, data: str, **config) -> dict:
    return {"kind": "from_connect", "plugin": plugin, "converter": converter, "config": config, "header": False}


def difference(case, theirs, mine, twins=None, item=None) -> Difference:
    return Difference(case, item if item is not None else (case.get("records") or [None])[0], theirs, mine, twins or {})


JSON_VALUES = {"value.converter": JSON, "value.converter.schemas.enable": "false", "key.converter": JSON}


def test_map_entry_order_excuses_reordered_map_text_only():
    case = converted("StringConverter", STRING, "")
    assert map_entry_order(difference(case, {"ok": b64("{a=1, b=2}")}, {"ok": b64("{b=2, a=1}")}, item="{}"))
    assert not map_entry_order(difference(case, {"ok": b64("{a=1, b=2}")}, {"ok": b64("{a=2, b=1}")}, item="{}"))
    assert not map_entry_order(difference(case, {"ok": b64("{amount=12}")}, {"ok": b64("{amount=21}")}, item="{}"))


def test_map_entry_order_never_excuses_json():
    case = pipeline(JSON_VALUES)
    assert not map_entry_order(difference(case, written('{"a":1,"b":2}'), written('{"a":2,"b":1}')))
    assert not map_entry_order(difference(case, written('{"amount":12}'), written('{"amount":21}')))


def test_float_digits_never_excuse_integers():
    case = pipeline(JSON_VALUES)
    assert not java17_float_digits(difference(case, written('{"n":16777217}'), written('{"n":16777216}')))
    long_case = {"kind": "to_connect", "plugin": "LongConverter", "converter": LONG, "config": {}}
    envelope = '{"schema":{"type":"int64","optional":true},"payload":%d}'
    assert not java17_float_digits(
        difference(
            long_case,
            {"ok": envelope % 1234567890123456789},
            {"ok": envelope % 1234567890123456768},
            item=None,
        )
    )


def test_float_digits_excuse_java17s_float_text_and_nothing_else():
    schema = '{"type":"struct","fields":[{"type":"%s","optional":false,"field":"x"}],"optional":false}'
    case = pipeline({**JSON_VALUES, "value.converter.schemas.enable": "true"})

    def envelope(kind: str, number: str) -> str:
        return '{"schema":%s,"payload":{"x":%s}}' % (schema % kind, number)

    assert java17_float_digits(
        difference(case, written(envelope("float", "1.23456792E8")), written(envelope("float", "1.2345679E8")))
    )
    # A FLOAT64 that lost precision to a float32 is a bug, not Java 17's digits.
    assert not java17_float_digits(
        difference(case, written(envelope("double", "123456.789")), written(envelope("double", "123456.79")))
    )
    # Another float32 value altogether.
    assert not java17_float_digits(
        difference(case, written(envelope("float", "1.23456792E8")), written(envelope("float", "1.2345678E8")))
    )


REPLACE = {
    **JSON_VALUES,
    "transforms": "t",
    "transforms.t.type": "org.apache.kafka.connect.transforms.ReplaceField$Value",
    "transforms.t.blacklist": "card",
}


def test_deprecated_names_are_checked_against_kafka_with_exclude():
    case = pipeline(REPLACE)
    every_field, without_card, only_card = (
        written('{"id":1,"card":"4111"}'),
        written('{"id":1}'),
        written('{"card":"4111"}'),
    )
    kafka_twins = {"canonical:t": [without_card], "ignored:t": [every_field]}
    assert deprecated_replace_field_names(difference(case, every_field, without_card, kafka_twins))
    # blacklist acting as include (the planted bug): ours is not Kafka's exclude output.
    assert not deprecated_replace_field_names(difference(case, every_field, only_card, kafka_twins))


def test_rename_collisions_need_ours_to_be_one_of_kafkas_visiting_orders():
    case = pipeline({**JSON_VALUES, "transforms": "t", "transforms.t.renames": "a:x,b:x"})
    winners = {"winners": [written('{"x":1}'), written('{"x":2}')]}
    assert rename_collisions(difference(case, written('{"x":2}'), written('{"x":1}'), winners))
    assert not rename_collisions(difference(case, written('{"x":2}'), written('{"x":3}'), winners))
    assert not rename_collisions(difference(case, written('{"x":2}'), written('{"x":1}')))


def test_tombstone_pass_through_needs_ours_to_be_kafka_without_the_stage():
    case = pipeline(JSON_VALUES)
    failed = {"error": {"stage": "TRANSFORMATION", "message": "Only Map objects supported ..., found: null"}}
    without = {"without:t": [written(None, key="k")]}
    assert tombstone_pass_through(difference(case, failed, written(None, key="k"), without))
    assert not tombstone_pass_through(difference(case, failed, written(None, key="other"), without))


def test_dates_beyond_9999_look_at_kafkas_value():
    timestamp = '{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1}'
    case = pipeline({**JSON_VALUES, "value.converter.schemas.enable": "true"})
    ours = {
        "error": {
            "stage": "TRANSFORMATION",
            "message": "Timestamp 253402300800000 (milliseconds since 1970) is outside the years 1 to 9999 "
            "that dates and timestamps can hold here",
        }
    }
    beyond = written(json.dumps({"schema": json.loads(timestamp), "payload": 253402300800000}))
    within = written(json.dumps({"schema": json.loads(timestamp), "payload": 1700000000000}))
    assert dates_beyond_year_9999(difference(case, beyond, ours))
    assert not dates_beyond_year_9999(difference(case, within, ours))
