"""The Kafka Connect ABI benchmark rows run on a small scale (no timing is asserted here)."""

import base64
import json

import pytest
import wasmtime

from smt.batch import RecordBatch
from smt.benchmarks import wasm as bench
from smt.benchmarks import wasm_kafka_connect as rows
from smt.benchmarks._common import RaiseErrors, kafka_connect_transform

pytestmark = pytest.mark.benchmark


@pytest.mark.guest_toolchain("rust")
def test_the_rust_guest_row_builds_the_guest_and_runs_both_paths(tmp_path):
    [comparison] = rows.rust_guest(bench._values(1000), str(tmp_path), batch_rows=400)

    assert comparison.name == "wasm to_upper, Rust guest importing every host function"
    assert comparison.ours.records == comparison.baseline.records == 1000
    assert comparison.target == "5M/s"


def test_the_record_json_rows_run_both_paths(tmp_path):
    comparisons = rows.record_json(bench._values(1000), str(tmp_path), batch_rows=400)

    assert [c.name for c in comparisons] == [
        "wasm get_record (JSON to the value)",
        "wasm get_record + set_record round trip",
    ]
    assert all(c.ours.records == c.baseline.records == 1000 for c in comparisons)


def test_the_record_json_guests_do_what_their_rows_say(tmp_path):
    module = tmp_path / "record_json.wasm"
    module.write_bytes(wasmtime.wat2wasm(rows._guest_wat()))
    batch = RecordBatch.from_arrow(rows._records(bench._values(2)).to_batches()[0])

    as_json = kafka_connect_transform(str(module), "fast", "to_json").apply_batch(batch, RaiseErrors())
    round_trip = kafka_connect_transform(str(module), "fast", "round_trip").apply_batch(batch, RaiseErrors())

    assert json.loads(as_json.records()[1].value) == {
        "headers": {"trace": "MDAwMDAwMDE="},
        "topic": "bench",
        "key": "a2V5LTE=",
        "value": base64.b64encode(batch.records()[1].value).decode(),
    }
    assert round_trip.records() == batch.records()
