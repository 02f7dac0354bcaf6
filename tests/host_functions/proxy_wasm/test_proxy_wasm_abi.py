"""proxy-wasm Kafka filters through the wasm transform: records in Produce requests, records back."""

from __future__ import annotations

import json
import logging

import pytest

from host_functions.guest_abi import PROXY_WASM
from smt.record import Record
from tests.host_functions._guest_helpers import record, run, values


def test_rust_to_upper_filter_rewrites_values_and_keeps_every_other_field(proxy_wasm_transform):
    transform = proxy_wasm_transform("to_upper")
    assert transform.abi == PROXY_WASM
    records = [
        record("hello", key=b"k1", partition=2, offset=7, headers=(("h", b"v"), ("n", None))),
        record("", key=None, partition=2, offset=8, timestamp=None),
        record(None, partition=2, offset=9),
        record("Ünïcode ascii", topic="other", partition=None, offset=10, timestamp=5),
    ]
    out, errors = run(transform, records)
    assert errors.failures == []
    assert [(r.topic, r.partition, r.offset, r.timestamp, r.key, r.value, tuple(r.headers)) for r in out.records()] == [
        ("in", 2, 7, 1_700_000_000_000, b"k1", b"HELLO", (("h", b"v"), ("n", None))),
        ("in", 2, 8, None, None, b"", ()),
        ("in", 2, 9, 1_700_000_000_000, b"k", None, ()),
        ("other", None, 10, 5, b"k", "Ünïcode ascii".encode().upper(), ()),  # ASCII letters only
    ]
    assert list(out.origin) == [0, 1, 2, 3]


def test_a_record_without_topic_or_partition_keeps_none(proxy_wasm_transform):
    out, errors = run(proxy_wasm_transform("to_upper"), [record("x", topic=None, partition=None)])
    assert errors.failures == []
    assert [(r.topic, r.partition, r.value) for r in out.records()] == [(None, None, b"X")]


def test_go_pii_filter_masks_email_addresses_in_json_values(proxy_wasm_transform):
    transform = proxy_wasm_transform("pii_mask", "go")
    documents = [{"user": "ann", "contact": "ann.lee@example.com", "notes": ["cc bob@corp.io", 3]}, {"no": "address"}]
    out, errors = run(transform, [record(json.dumps(d)) for d in documents] + [record("not json a@b.cd")])
    assert errors.failures == []
    assert [json.loads(v) for v in values(out)[:2]] == [
        {"user": "ann", "contact": "***@***", "notes": ["cc ***@***", 3]},
        {"no": "address"},
    ]
    assert values(out)[2] == b"not json a@b.cd"  # not JSON: passed through untouched


def test_plugin_configuration_is_the_config_keys_as_json(proxy_wasm_transform):
    transform = proxy_wasm_transform("pii_mask", "go", **{"config.mask": "<redacted>"})
    out, errors = run(transform, [record('{"to": "x.y@z.org"}')])
    assert errors.failures == [] and json.loads(values(out)[0]) == {"to": "<redacted>"}


def test_filter_sees_configuration_and_kafka_properties(proxy_wasm_transform, caplog):
    transform = proxy_wasm_transform("hostile", **{"config.level": "high", "config.name": "t1"})
    with caplog.at_level(logging.INFO, logger="smt.transform"):
        out, errors = run(transform, [record("plain")])
    assert errors.failures == [] and values(out) == [b"plain"]
    messages = [r.getMessage() for r in caplog.records]
    assert 'configuration {"level": "high", "name": "t1"}' in messages
    # listener_direction 1 (inbound, as Envoy encodes it) and a connection id of the host's numbering
    assert any(
        m.startswith("connection ")
        and m.endswith(" direction 1")
        and m != "connection 18446744073709551615 direction 1"
        for m in messages
    )


def test_records_are_grouped_into_one_request_per_topic_partition(proxy_wasm_transform):
    transform = proxy_wasm_transform("hostile", timeout_ms="2000")
    # "boom" fails the request holding it: exactly the records of its topic-partition
    records = [
        record("a", partition=0),
        record("boom", partition=1),
        record("b", partition=0),
        record("c", partition=1, topic="t2"),
        record("d", partition=1),
    ]
    out, errors = run(transform, records)
    assert values(out) == [b"a", b"b", b"c"]
    assert errors.rows == [1, 4]
    assert "boom" not in errors.message(4) and "trap" in errors.message(4)


def test_dropped_and_duplicated_records_follow_their_offset_delta(proxy_wasm_transform):
    transform = proxy_wasm_transform("hostile")
    out, errors = run(transform, [record("one"), record("drop"), record("twice"), record("four")])
    assert errors.failures == []
    assert values(out) == [b"one", b"twice", b"twice", b"four"]
    assert list(out.origin) == [0, 2, 2, 3]


def test_headers_and_timestamps_a_filter_sets_are_kept(proxy_wasm_transform):
    transform = proxy_wasm_transform("hostile")
    out, errors = run(transform, [record("tag"), record("stamp"), record("plain")])
    assert errors.failures == []
    assert [tuple(r.headers) for r in out.records()] == [(("tagged", b"yes"),), (), ()]
    assert [r.timestamp for r in out.records()] == [1_700_000_000_000, 42, 1_700_000_000_000]


def test_max_outputs_per_record_bounds_fan_out(proxy_wasm_transform):
    transform = proxy_wasm_transform("hostile", **{"max.outputs.per.record": "1"})
    out, errors = run(transform, [record("twice"), record("once", offset=1)])
    assert values(out) == [b"once"] and errors.rows == [0]
    assert errors.message(0).endswith(
        "the record output more than 1 records (max.outputs.per.record=1) on the "
        "record at partition=0 offset=0 (row 0 of the batch)"
    )


def test_max_output_bytes_per_batch_bounds_what_a_filter_forwards(proxy_wasm_transform):
    transform = proxy_wasm_transform("hostile", **{"max.output.bytes.per.batch": str(1 << 16)})
    small, big = record("small", partition=0), record("x" * 70_000, partition=1)  # one request each
    out, errors = run(transform, [small, big, record("after", partition=2)])
    assert values(out) == [b"small"] and errors.rows == [1, 2]
    assert "its outputs take the batch's outputs past 65536 bytes (max.output.bytes.per.batch=65536)" in errors.message(
        1
    )


def test_large_batches_are_cut_into_requests_within_the_memory_budget(proxy_wasm_transform):
    transform = proxy_wasm_transform("to_upper", memory_max_bytes=str(2 << 20))  # requests of at most 256 KiB
    records = [record(f"value {i:05d} " + "x" * 200, offset=i) for i in range(3000)]  # ~650 KiB
    out, errors = run(transform, records)
    assert errors.failures == []
    assert values(out) == [f"VALUE {i:05d} ".encode() + b"X" * 200 for i in range(3000)]
    assert list(out.offset) == list(range(3000))


def test_record_converters_apply_before_and_after_the_filter(proxy_wasm_transform):
    transform = proxy_wasm_transform("to_upper", **{"value.converter": "string", "key.converter": "string"})
    out, errors = run(transform, [Record(topic="in", partition=0, offset=0, timestamp=None, key="key", value="text")])
    assert errors.failures == []
    assert out.records()[0].value == "TEXT" and out.records()[0].key == "key"


def test_converter_settings_reach_the_converters(proxy_wasm_transform):
    # schemas.enable=false: plain JSON goes to the filter (with the default envelope, to_upper would break it)
    transform = proxy_wasm_transform(
        "to_upper", **{"value.converter": "json", "value.converter.schemas.enable": "false"}
    )
    out, errors = run(
        transform, [Record(topic="in", partition=0, offset=0, timestamp=None, key=b"k", value={"name": "ann"})]
    )
    assert errors.failures == [] and out.records()[0].value == {"NAME": "ANN"}


@pytest.mark.parametrize("name, language", [("to_upper", "rust"), ("pii_mask", "go")])
def test_an_instance_serves_many_batches(proxy_wasm_transform, name, language):
    transform = proxy_wasm_transform(name, language)
    for round_ in range(5):
        out, errors = run(transform, [record(f"v{round_}-{i}") for i in range(50)])
        assert errors.failures == [] and len(out) == 50
