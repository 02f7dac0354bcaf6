"""Hostile filters fail only the records of the request they broke; the rest go on, on a fresh instance.

Each record below sits in a partition of its own, so in a Produce request of its own.
"""

from __future__ import annotations

import pytest

from host_functions import WasmGuestError
from tests.host_functions._guest_helpers import record, run, values

MEMORY = 32 << 20
#: trigger -> the failure it must give, per language (Rust aborts on a panic; Go exits with 2)
FAILURES = {
    "boom": {
        "rust": r"trap: unreachable instruction executed \(the guest aborted\)",
        "go": r"trap: unreachable instruction executed \(the guest aborted\)",
    },  # its panic is in the log
    "spin": {"rust": r"timed out after 300 ms \(timeout.ms\)", "go": r"timed out after 300 ms \(timeout.ms\)"},
    "hog": {
        "rust": rf"out of memory: guest memory at \d+ bytes of memory.max.bytes={MEMORY}",
        "go": rf"out of memory: guest memory at \d+ bytes of memory.max.bytes={MEMORY}",
    },
    "grow": {
        "rust": rf"the filter grew the downstream data to \d+ bytes, past {MEMORY} \(memory.max.bytes\)",
        "go": rf"the filter grew the downstream data to \d+ bytes, past {MEMORY} \(memory.max.bytes\)",
    },
    "close": {
        "rust": r"the filter closed the connection \(proxy_close_stream\)",
        "go": r"the filter closed the connection \(proxy_close_stream\)",
    },
}
LANGUAGES = ("rust", "go")


#: Only the endless loop needs a short time limit; the others get one no loaded machine reaches,
#: so that a memory hog fails by its memory and never by the clock.
TIMEOUT_MS = {"spin": "300"}


def hostile(proxy_wasm_transform, language, trigger=None):
    timeout_ms = TIMEOUT_MS.get(trigger, "60000")
    return proxy_wasm_transform("hostile", language, timeout_ms=timeout_ms, memory_max_bytes=str(MEMORY))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("trigger", sorted(FAILURES))
def test_a_hostile_request_fails_its_records_alone(proxy_wasm_transform, language, trigger):
    transform = hostile(proxy_wasm_transform, language, trigger)
    records = [record("before", partition=0), record(trigger, partition=1), record("after", partition=2)]
    out, errors = run(transform, records)
    assert values(out) == [b"before", b"after"]
    assert errors.rows == [1]
    error = errors.failures[0][1]
    assert isinstance(error, WasmGuestError)
    assert str(error).startswith(f"wasm transform 'hostile' (proxy_on_downstream_data in hostile.{language}.wasm): ")
    assert str(error).endswith(" on the record at partition=1 offset=0 (row 1 of the batch)")
    with pytest.raises(WasmGuestError, match=FAILURES[trigger][language]):
        raise error


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_held_request_holds_the_rest_of_its_connection(proxy_wasm_transform, language):
    # Pause keeps the data buffered and the next requests are appended behind it, as on a socket;
    # what is still held when the batch ends (after a call with end_of_stream) fails
    transform = hostile(proxy_wasm_transform, language)
    out, errors = run(
        transform, [record("before", partition=0), record("hold", partition=1), record("after", partition=2)]
    )
    assert values(out) == [b"before"] and errors.rows == [1, 2]
    assert errors.message(2).endswith(
        "the filter held the Produce request back (it returned Pause and never "
        "continued the stream) on the record at partition=2 offset=0 (row 2 of the "
        "batch)"
    )
    out, errors = run(transform, [record("next batch")])  # a new batch is a new connection
    assert errors.failures == [] and values(out) == [b"next batch"]


@pytest.mark.parametrize("order", [("wait", "x"), ("x", "wait")])
def test_a_filter_that_pauses_for_more_data_gets_it(proxy_wasm_transform, order):
    transform = hostile(proxy_wasm_transform, "rust")
    out, errors = run(transform, [record(value, partition=i) for i, value in enumerate(order)])
    assert errors.failures == [] and values(out) == [value.encode() for value in order]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_kind_of_failure_in_one_batch(proxy_wasm_transform, language):
    transform = hostile(proxy_wasm_transform, language, "spin")  # which failure each row gets is not checked
    triggers = ["a", "boom", "b", "spin", "c", "close", "d", "grow", "e", "hog", "f", "hold", "g"]
    out, errors = run(transform, [record(t, partition=i, offset=i) for i, t in enumerate(triggers)])
    assert values(out) == [b"a", b"b", b"c", b"d", b"e", b"f"]
    assert errors.rows == [1, 3, 5, 7, 9, 11, 12]
    out, errors = run(transform, [record("after")])  # the transform is still usable
    assert errors.failures == [] and values(out) == [b"after"]


def test_a_corrupted_request_fails_its_records(proxy_wasm_transform):
    transform = hostile(proxy_wasm_transform, "rust")
    out, errors = run(
        transform, [record("x", partition=0), record("y corrupt", partition=1), record("z corrupt", partition=1)]
    )
    assert values(out) == [b"x"] and errors.rows == [1, 2]
    assert errors.message(1).endswith(
        "the filter corrupted the Produce request: a record batch of in-1 fails its CRC-32C check (corrupt, or "
        "rewritten without a new checksum) on the record at partition=1 offset=0 (row 1 of the batch)"
    )


def test_a_filter_that_cannot_start_fails_at_configure_time(proxy_wasm_transform):
    from smt.errors import ConfigError

    with pytest.raises(
        ConfigError,
        match=r"transforms.hostile.module.path: proxy-wasm filter 'hostile.rust.wasm' "
        r"cannot start: proxy_on_configure returned false: the filter refused its "
        r"configuration",
    ):
        proxy_wasm_transform("hostile", **{"config.mode": "refuse"})


def test_a_leaking_filter_gets_fresh_instances_and_no_request_fails(proxy_wasm_transform, caplog):
    # 256 KiB leaked per call: a 4 MiB memory is full every dozen requests, over many instance lifetimes
    transform = proxy_wasm_transform("hostile", memory_max_bytes=str(4 << 20))
    records = [record(f"leak {i}", partition=i, offset=i) for i in range(120)]
    with caplog.at_level("INFO", logger="smt.transform"):
        out, errors = run(transform, records)
    assert errors.failures == []
    assert values(out) == [f"leak {i}".encode() for i in range(120)]
    retries = [r for r in caplog.records if "runs again on a fresh instance" in r.getMessage()]
    assert len(retries) >= 5
