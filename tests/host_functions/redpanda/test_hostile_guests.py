"""Hostile Redpanda guests fail only their own records; the rest of the batch goes on, on a fresh instance."""

from __future__ import annotations

import pytest

from host_functions import WasmGuestError
from tests.host_functions._guest_helpers import run, values
from tests.host_functions.redpanda.conftest import LANGUAGES, record

#: command -> the failure it must give, per language (Rust aborts on a panic; Go exits with 2)
FAILURES = {
    "trap": {
        "rust": r"trap: unreachable instruction executed \(the guest aborted\)",
        "go": r"the guest exited with code 2",
    },
    "loop": {"rust": r"timed out after 300 ms \(timeout.ms\)", "go": r"timed out after 300 ms \(timeout.ms\)"},
    "bomb": {
        "rust": r"out of memory: guest memory at \d+ bytes of memory.max.bytes=33554432",
        "go": r"the guest exited with code 2",
    },
    "exit": {"rust": r"the guest exited with code 3", "go": r"the guest exited with code 3"},
    "flood": {
        "rust": r"wrote more than max.outputs.per.record=10000 records for one record",
        "go": r"wrote more than max.outputs.per.record=10000 records for one record",
    },
}


#: Only the endless loop needs a short time limit; the others get one no loaded machine reaches,
#: so that a memory bomb fails by its memory and never by the clock.
TIMEOUT_MS = {"loop": "300"}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("command", sorted(FAILURES))
def test_a_hostile_record_fails_alone(redpanda_transform, language, command):
    timeout_ms = TIMEOUT_MS.get(command, "60000")
    transform = redpanda_transform("hostile", language, timeout_ms=timeout_ms, memory_max_bytes=str(32 << 20))
    out, errors = run(transform, [record("before"), record(command, offset=1), record("after", offset=2)])
    assert values(out) == [b"before", b"after"]
    assert errors.rows == [1]
    error = errors.failures[0][1]
    assert isinstance(error, WasmGuestError)
    assert str(error).startswith(f"wasm transform 'hostile' (_start in hostile.{language}.wasm): ")
    assert str(error).endswith(" on the record at partition=3 offset=1 (row 1 of the batch)")
    with pytest.raises(WasmGuestError, match=FAILURES[command][language]):
        raise error


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_kind_of_failure_in_one_batch(redpanda_transform, language):
    transform = redpanda_transform("hostile", language, timeout_ms="300", memory_max_bytes=str(32 << 20))
    commands = ["a", "trap", "b", "loop", "c", "exit", "d", "flood", "e", "bomb", "f"]
    out, errors = run(transform, [record(command, offset=i) for i, command in enumerate(commands)])
    assert values(out) == [b"a", b"b", b"c", b"d", b"e", b"f"]
    assert errors.rows == [1, 3, 5, 7, 9]
    out, errors = run(transform, [record("count")])  # the transform is still usable
    assert errors.failures == [] and len(out) == 1


def test_rust_guest_faults_fail_their_record(redpanda_transform):
    transform = redpanda_transform("hostile", "rust", output_topics="main,other")
    records = [
        record("route:other"),
        record("route:unknown"),
        record("bad-header"),
        record("header"),
        record("null"),
        record("fanout:3"),
    ]
    out, errors = run(transform, records)
    assert [(r.value, r.topic, r.key) for r in out.records()] == [
        (b"route:other", "other", b"k"),
        (b"header", "main", b"k"),
        (None, "main", None),
        (b"fanout:3#0", "main", b"k"),
        (b"fanout:3#1", "main", b"k"),
        (b"fanout:3#2", "main", b"k"),
    ]
    assert list(out.origin) == [0, 3, 4, 5, 5, 5]
    assert tuple(out.records()[1].headers) == (("seen", b"yes"),)
    assert errors.rows == [1, 2]
    # writing to a topic that is not an output topic returns INVALID_WRITE (-3); the SDK then panics
    assert "the guest aborted" in errors.message(1)
    assert errors.message(2).endswith(
        "the guest wrote a header name that is not UTF-8 on the record at partition=3 offset=0 (row 2 of the batch)"
    )


def test_go_sleep_does_not_block_the_record(redpanda_transform):
    transform = redpanda_transform("hostile", "go", timeout_ms="2000")
    out, errors = run(transform, [record("sleep"), record("after")])
    assert errors.failures == [] and values(out) == [b"sleep", b"after"]
