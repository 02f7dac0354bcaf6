"""The transform as a plugin: pickling, plugin host functions, converters, config."""

from __future__ import annotations

import os
import pickle

import pytest

from host_functions import HostFunction, WasmTransform
from host_functions.kafka_connect import fast_path
from smt.batch import RecordBatch
from smt.plugin import PluginContext
from smt.plugins import hookimpl, load_plugins
from tests.host_functions import wat_guests as g
from tests.host_functions.conftest import make_record, run


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_pickle_round_trip_carries_the_module_bytes(make_transform, path):
    transform = make_transform(g.FILTER_FAN_OUT, "filter_fan_out", path, config_suffix="!")
    os.remove(transform.config["module.path"])
    copy = pickle.loads(pickle.dumps(transform))
    assert copy.path == path
    assert copy.context.alias == "mask" and copy.context.prefix == "transforms.mask."
    records = [make_record(b"a"), make_record(b"b")]
    assert run(copy, records)[:2] == run(transform, records)[:2]


class _DoublingPlugin:
    @hookimpl
    def smt_host_functions(self):
        def double(call, value):
            return value * 2

        def shout(call):
            record = call.record
            return call.give((record.value or b"").upper() + b"!")

        return [HostFunction("double", ("i32",), ("i32",), double), HostFunction("shout", (), ("i64",), shout)]


def test_plugin_host_functions_switch_to_the_reference_path(wasm_file):
    source = g.guest(
        """(func (export "f") (local $v i64)
            (call $reset)
            (local.set $v (call $shout))
            (call $set_value (call $ptr (local.get $v)) (call $double (call $len (local.get $v)))))""",
        extra="""(import "env" "double" (func $double (param i32) (result i32)))
                 (import "env" "shout" (func $shout (result i64)))
                 (import "env" "set_value" (func $set_value (param i32 i32)))""",
    )
    plugins = load_plugins(entry_points=False, extra_plugins=[_DoublingPlugin()])
    transform = WasmTransform()
    transform.configure(
        {"module.path": wasm_file(source), "function.name": "f"}, PluginContext("p", "transforms.p.", plugins)
    )
    assert transform.path == "reference"
    # shout gives "HI!" (3 bytes); double(3) = 6 reads 3 bytes past it (zeroed memory)
    out, _, _ = run(transform, [make_record(b"hi")])
    assert out[0].value == b"HI!\x00\x00\x00"


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_value_converter_string(make_transform, path):
    transform = make_transform(g.TO_UPPER, "to_upper", path, value_converter="string")
    out, _, errors = run(transform, [make_record("grüße"), make_record(b"not a str")])
    assert out[0].value == "GRüßE"
    # the string converter writes bytes as base64 (bm90IGEgc3Ry): a converter is applied, not bypassed
    assert out[1].value == "BM90IGEGC3RY"
    assert errors.failures == []


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_converter_error_fails_only_its_record(make_transform, path):
    transform = make_transform(g.TO_UPPER, "to_upper", path)
    out, origins, errors = run(transform, [make_record("a str"), make_record(b"bytes")])
    assert [r.value for r in out] == [b"BYTES"] and origins == [1]
    assert errors.rows == [0]
    assert errors.message(0).startswith("wasm transform 'mask' (to_upper in ")
    assert (
        "value.converter failed: DataError: ByteArrayConverter is not compatible with objects of type str"
        in errors.message(0)
    )


def test_bad_config_values(make_transform):
    from smt.errors import ConfigError

    with pytest.raises(ConfigError, match=r"^transforms\.mask\.path: must be one of fast, reference; got 'turbo'$"):
        make_transform(g.TO_UPPER, "to_upper", "turbo")
    with pytest.raises(ConfigError, match=r"^transforms\.mask\.timeout\.ms: must be at least 1; got 0$"):
        make_transform(g.TO_UPPER, "to_upper", timeout_ms=0)
    with pytest.raises(ConfigError, match=r"^transforms\.mask\.value\.converter: unknown converter 'nope'"):
        make_transform(g.TO_UPPER, "to_upper", value_converter="nope")
    with pytest.raises(
        ConfigError,
        match=r"^transforms\.mask\.memory\.max\.bytes: must be at most 4294967296 \(a 32-bit WebAssembly memory "
        r"holds at most 4 GiB\); got 8589934592$",
    ):
        make_transform(g.TO_UPPER, "to_upper", memory_max_bytes=8 * 1024**3)
    make_transform(g.TO_UPPER, "to_upper", memory_max_bytes=4 * 1024**3)  # the most a guest can address


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_a_batch_abandoned_by_its_error_sink_leaves_nothing_behind(make_transform, path):
    """An error sink that raises stops the batch part way (as ``apply`` does); the next batch starts clean."""

    class Abort(Exception):
        pass

    class RaisingSink:
        def fail(self, row, exc):
            raise Abort(str(exc))

    transform = make_transform(g.ERROR_ON_ODD, "check", path)
    with pytest.raises(
        Abort, match=r"the guest reported an error: abc on the record at partition=0 offset=0 \(row 1 of the batch\)"
    ):
        transform.apply_batch(RecordBatch.from_records([make_record(b"ab"), make_record(b"abc")]), RaisingSink())
    out, origins, errors = run(transform, [make_record(b"xy")])
    assert [r.value for r in out] == [b"xy"] and origins == [0] and errors.failures == []


def test_an_unpickled_copy_starts_on_the_warm_instance(make_transform, monkeypatch):
    """Spark unpickles a transform per task: the copy reuses the instance the last task warmed up."""
    transform = make_transform(g.TO_UPPER, "to_upper")
    run(transform, [make_record(b"warm")])
    built = []
    monkeypatch.setattr(fast_path, "FastInstance", lambda *args: built.append(args))
    copy = pickle.loads(pickle.dumps(transform))
    out, _, errors = run(copy, [make_record(b"up")])
    assert [r.value for r in out] == [b"UP"] and errors.failures == [] and built == []


@pytest.mark.parametrize("source, function, changed", [
    (g.TO_UPPER, "to_upper", {"value"}),
    (g.HEADERS, "headers", {"headers"}),
    (g.ROUTE_TIMESTAMP, "route", {"topic", "timestamp"}),
    (g.SET_RECORD, "replace", {"key", "value", "topic", "headers"}),
])  # fmt: skip
def test_the_fields_a_guest_can_change_come_from_its_setters(make_transform, source, function, changed):
    assert make_transform(source, function).changed_fields() == changed
