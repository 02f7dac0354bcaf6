"""Redpanda guests built with the official Go and Rust SDKs, through the wasm transform: the ABI's semantics."""

from __future__ import annotations

import pytest

from tests.host_functions._guest_helpers import run, values
from tests.host_functions.redpanda.conftest import LANGUAGES, record

pytestmark = pytest.mark.parametrize("language", LANGUAGES)


def test_the_abi_is_detected(redpanda_transform, language):
    assert redpanda_transform("to_upper", language).abi == "redpanda"


def test_to_upper_keeps_key_headers_and_metadata(redpanda_transform, language):
    transform = redpanda_transform("to_upper", language, output_topics="upper")
    records = [
        record("hello é", key=b"k1", offset=7, headers=(("h", b"v"), ("n", None))),
        record(None, key=None, offset=8),
        record("", key=b"", offset=9, timestamp=None),
    ]
    out, errors = run(transform, records)
    assert errors.failures == []
    assert [(r.key, r.value, r.topic, r.partition, r.offset, r.timestamp, tuple(r.headers)) for r in out.records()] == [
        (b"k1", "HELLO é".encode(), "upper", 3, 7, 1_700_000_000_000, (("h", b"v"), ("n", None))),
        (None, None, "upper", 3, 8, 1_700_000_000_000, ()),
        (b"", b"", "upper", 3, 9, None, ()),
    ]


def test_without_output_topics_records_stay_on_their_topic(redpanda_transform, language):
    out, _ = run(redpanda_transform("to_upper", language), [record("a", topic="t1"), record("b", topic="t2")])
    assert [(r.topic, r.value) for r in out.records()] == [("t1", b"A"), ("t2", b"B")]


def test_filter_drops_what_does_not_match(redpanda_transform, language):
    records = [record("an error here"), record("all fine"), record(None), record("ERROR?")]
    out, errors = run(redpanda_transform("filter", language), records)
    assert values(out) == [b"an error here"] and errors.failures == []
    out, _ = run(redpanda_transform("filter", language, **{"config.MATCH": "fine"}), records)
    assert values(out) == [b"all fine"]
    assert list(out.origin) == [1]


def test_router_sends_records_to_the_topic_they_name(redpanda_transform, language):
    transform = redpanda_transform("router", language, output_topics="main,audit,billing")
    records = [
        record("1", headers=(("route", b"billing"),)),
        record("2"),
        record("3", headers=(("route", b"nope"),)),
        record("4", headers=(("route", b"billing"), ("route", b"audit"))),
    ]
    out, errors = run(transform, records)
    assert errors.failures == []
    assert [(r.value, r.topic) for r in out.records()] == [
        (b"1", "billing"),
        (b"2", "main"),
        (b"3", "main"),
        (b"4", "audit"),
    ]


def test_the_guest_sees_the_redpanda_environment_and_the_clock_of_its_record(redpanda_transform, language):
    transform = redpanda_transform("hostile", language, output_topics="a,b", **{"config.GREETING": "hi"})
    records = [
        record("env:REDPANDA_INPUT_TOPIC", topic="orders"),
        record("env:REDPANDA_OUTPUT_TOPIC_1"),
        record("env:GREETING"),
        record("env:HOME"),
        record("clock", timestamp=1_234_567),
    ]
    out, errors = run(transform, records)
    assert errors.failures == []
    assert values(out) == [b"orders", b"b", b"hi", b"<unset>", b"1234567"]


def test_input_topic_setting_overrides_the_records_topic(redpanda_transform, language):
    transform = redpanda_transform("hostile", language, input_topic="declared")
    out, _ = run(transform, [record("env:REDPANDA_INPUT_TOPIC", topic="other")])
    assert values(out) == [b"declared"]


def test_each_input_topic_gets_its_own_instance_and_order_is_kept(redpanda_transform, language):
    transform = redpanda_transform("hostile", language)
    records = [record("env:REDPANDA_INPUT_TOPIC", topic=t) for t in ("x", "y", "x", "z", "y")]
    out, _ = run(transform, records)
    assert values(out) == [b"x", b"y", b"x", b"z", b"y"]
    assert [r.topic for r in out.records()] == ["x", "y", "x", "z", "y"]


def test_state_lives_across_batches(redpanda_transform, language):
    transform = redpanda_transform("hostile", language)
    first, _ = run(transform, [record("count"), record("count")])
    second, _ = run(transform, [record("count")])
    assert values(first) + values(second) == [b"1", b"2", b"3"]


def test_converters_give_the_guest_bytes_and_take_its_bytes_back(redpanda_transform, language):
    transform = redpanda_transform(
        "hostile", language, **{"value.converter": "json", "value.converter.schemas.enable": "false"}
    )
    out, errors = run(transform, [record({"n": 1}), record([1, "two"])])
    assert errors.failures == []
    assert values(out) == [{"n": 1}, [1, "two"]]
