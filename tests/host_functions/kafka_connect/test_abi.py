"""Every host function, on both paths, against small WAT guests."""

from __future__ import annotations

import base64
import json
import logging

import pytest

from host_functions import WasmTransform
from smt.plugins import default_plugins
from tests.host_functions import wat_guests as g
from tests.host_functions.conftest import PATHS, make_record, run


@pytest.mark.parametrize("path", PATHS)
class TestCoreAbi:
    def test_get_and_set_value(self, make_transform, path):
        transform = make_transform(g.TO_UPPER, "to_upper", path)
        out, origins, errors = run(transform, [make_record(b"hello"), make_record(b"Mixed Case 42")])
        assert [r.value for r in out] == [b"HELLO", b"MIXED CASE 42"]
        assert origins == [0, 1] and errors.failures == []

    def test_get_and_set_key_with_nulls(self, make_transform, path):
        transform = make_transform(g.SWAP, "swap", path)
        out, _, _ = run(transform, [make_record(value=b"v", key=b"k"), make_record(value=None, key=b"k2")])
        assert [(r.key, r.value) for r in out] == [(b"v", b"k"), (b"", b"k2")]

    def test_headers_last_wins_and_set_appends(self, make_transform, path):
        transform = make_transform(g.HEADERS, "headers", path)
        record = make_record(topic="orders", headers=(("h", b"first"), ("other", b"x"), ("h", b"last")))
        out, _, _ = run(transform, [record, make_record(topic="t2")])
        assert out[0].headers == (
            ("h", b"first"),
            ("other", b"x"),
            ("h", b"last"),
            ("copy", b"last"),
            ("topic", b"orders"),
        )
        # a missing header reads as 0: the guest appends it with empty bytes
        assert out[1].headers == (("copy", b""), ("topic", b"t2"))

    def test_route_timestamp_partition_offset(self, make_transform, path):
        transform = make_transform(g.ROUTE_TIMESTAMP, "route", path)
        record = make_record(b"routed-topic", partition=3, offset=40, timestamp=1000)
        out, _, _ = run(transform, [record, make_record(b"x", partition=None, offset=None, timestamp=None)])
        assert (out[0].topic, out[0].timestamp, out[0].partition, out[0].offset) == ("routed-topic", 1043, 3, 40)
        # all three unknown: -1 + -1 + -1
        assert out[1].timestamp == -3

    def test_drop_fan_out_and_config(self, make_transform, path):
        transform = make_transform(g.FILTER_FAN_OUT, "filter_fan_out", path, config_suffix="-tail")
        records = [make_record(b"a1"), make_record(b"b2"), make_record(None), make_record(b"c3", key=b"k")]
        out, origins, errors = run(transform, records)
        assert [(r.key, r.value) for r in out] == [
            (b"key", b"a1"),
            (b"key", b"-tail"),
            (b"a1", b"-tail"),
            (b"k", b"c3"),
            (b"k", b"-tail"),
            (b"c3", b"-tail"),
        ]
        assert origins == [0, 0, 0, 3, 3, 3] and errors.failures == []

    def test_missing_config_reads_as_zero(self, make_transform, path):
        transform = make_transform(g.MISSING_CONFIG, "missing", path, config_other="x")
        out, _, _ = run(transform, [make_record(b"old")])
        assert out[0].value == b""

    def test_guest_reported_error_fails_only_its_record(self, make_transform, path):
        transform = make_transform(g.ERROR_ON_ODD, "check", path)
        out, origins, errors = run(transform, [make_record(b"ok"), make_record(b"odd"), make_record(b"even")])
        assert [r.value for r in out] == [b"ok", b"even"] and origins == [0, 2]
        assert errors.rows == [1]
        assert errors.message(1) == (
            "wasm transform 'mask' (check in " + transform.guest.label + "): "
            "the guest reported an error: odd on the record at partition=0 offset=0 (row 1 of the batch)"
        )

    def test_log_goes_to_the_transform_logger(self, make_transform, path, caplog):
        transform = make_transform(g.LOGGER, "log_it", path, alias="audit")
        with caplog.at_level(logging.DEBUG, logger="smt.transform.audit"):
            run(transform, [make_record(b"logged value")])
        logged = [(r.name, r.levelno, r.getMessage()) for r in caplog.records if r.name == "smt.transform.audit"]
        assert logged == [
            ("smt.transform.audit", logging.INFO, "logged value"),
            ("smt.transform.audit", logging.WARNING, "hello from the guest"),
        ]

    def test_apply_single_record(self, make_transform, path):
        transform = make_transform(g.FILTER_FAN_OUT, "filter_fan_out", path, config_suffix="!")
        assert transform.apply(make_record(b"b")) is None
        assert [r.value for r in transform.apply(make_record(b"a"))] == [b"a", b"!", b"!"]
        assert make_transform(g.TO_UPPER, "to_upper", path).apply(make_record(b"x")).value == b"X"


@pytest.mark.parametrize("path", PATHS)
class TestRecordJson:
    """get_record/set_record: JSON with base64 bytes, on both paths."""

    def test_get_record(self, make_transform, path):
        transform = make_transform(g.RECORD_TO_VALUE, "to_json", path)
        assert transform.path == path
        out, _, _ = run(transform, [make_record(b"v", key=None, topic="t", headers=(("a", b"1"), ("a", b"2")))])
        assert json.loads(out[0].value) == {
            "headers": {"a": base64.b64encode(b"2").decode()},
            "topic": "t",
            "value": base64.b64encode(b"v").decode(),
        }

    def test_set_record_replaces_headers_keeps_partition_and_timestamp(self, make_transform, path):
        transform = make_transform(g.SET_RECORD, "replace", path)
        assert transform.path == path
        record = make_record(b"v", partition=7, offset=9, timestamp=123, headers=(("old", b"o"),))
        out, _, _ = run(transform, [record])
        assert out[0] == record.replace(topic="routed", key=b"key", value=None, headers=(("x", b"y"),))


def test_registered_under_short_name_and_java_class_name():
    plugins = default_plugins()
    assert plugins.get("transform", "wasm") is WasmTransform
    assert plugins.get("transform", "com.github.lburgazzoli.kafka.transformer.wasm.WasmTransformer") is WasmTransform


def test_fast_path_is_the_default(make_transform):
    assert make_transform(g.TO_UPPER, "to_upper").path == "fast"
    assert make_transform(g.TO_UPPER, "to_upper", "reference").path == "reference"


@pytest.mark.parametrize("path", PATHS)
def test_empty_batch(make_transform, path):
    out, origins, errors = run(make_transform(g.FILTER_FAN_OUT, "filter_fan_out", path), [])
    assert out == [] and origins == [] and errors.failures == []
