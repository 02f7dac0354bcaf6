"""The Kafka Connect Wasm transformer's kind of guest: Rust, std and serde, every host function imported.

Built from source with cargo (examples/kafka_connect_rust), each of its functions runs through
WasmTransform on both paths, with the transformer's default byte-array converters.
"""

import pytest
import wasmtime

from smt.record import Record
from tests.host_functions.conftest import PATHS, run


def record(**changes) -> Record:
    fields = dict(
        topic="orders",
        partition=1,
        offset=7,
        timestamp=1_700_000_000_000,
        key=b"k-1",
        value=b"hello, wasm",
        headers=(("the-key", b"from-header"), ("the-header-in", b"copied")),
    )
    fields.update(changes)
    return Record(**fields)


def test_the_module_imports_all_ten_host_functions_of_the_transformer(kafka_connect_rust_guest):
    module = wasmtime.Module(wasmtime.Engine(), kafka_connect_rust_guest)

    assert {(i.module, i.name) for i in module.imports} == {
        ("env", f"{verb}_{part}") for verb in ("get", "set") for part in ("key", "value", "topic", "header", "record")
    }


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    ("function", "expected"),
    [
        ("to_upper", record(value=b"HELLO, WASM")),
        ("value_to_key", record(key=b"hello, wasm")),
        ("header_to_key", record(key=b"from-header")),
        ("copy_header", record(headers=record().headers + (("the-header-out", b"copied"),))),
        ("key_to_topic", record(topic="k-1-orders")),
        # set_record replaces every header: the document's header values are base64 strings, which
        # the guest hands back as they came
        ("transform", record(key=b"hello, wasm", value=b"HELLO, WASM")),
    ],
)
def test_each_function_changes_what_it_says(make_transform, kafka_connect_rust_guest, path, function, expected):
    transform = make_transform(kafka_connect_rust_guest, function, path=path)

    out, origins, errors = run(transform, [record(), record()])

    assert errors.failures == []
    assert origins == [0, 1]
    assert out == [expected, expected]


@pytest.mark.parametrize("path", PATHS)
def test_a_panic_in_the_guest_fails_only_its_record(make_transform, kafka_connect_rust_guest, path):
    transform = make_transform(kafka_connect_rust_guest, "to_upper", path=path)

    out, origins, errors = run(transform, [record(value=b"ok"), record(value=b"\xff not utf-8"), record(value=b"ok")])

    assert [r.value for r in out] == [b"OK", b"OK"]
    assert origins == [0, 2]
    assert errors.rows == [1]
    # the panic's cause and, from the module's name section, where it happened
    message = errors.message(1)
    assert "trap: unreachable instruction executed (the guest aborted); guest backtrace: " in message
    assert "<- to_upper" in message.split("guest backtrace: ")[1]
    assert message.endswith("on the record at partition=1 offset=7 (row 1 of the batch)")
