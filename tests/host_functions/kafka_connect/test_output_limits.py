"""Bounds on what a guest outputs: records per input record, bytes per batch."""

import pytest

from tests.host_functions import wat_guests as g
from tests.host_functions.conftest import PATHS, make_record, run

#: emits the record as many times as the value's first byte says, then outputs it once more.
FAN_OUT = g.guest(
    """(func (export "fan_out") (local $v i64) (local $n i32)
    (call $reset)
    (local.set $v (call $get_value))
    (local.set $n (i32.load8_u (call $ptr (local.get $v))))
    (block $done (loop $next
      (br_if $done (i32.eqz (local.get $n)))
      (call $emit_record)
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br $next))))""",
    imports=("get_value", "emit_record"),
)


@pytest.mark.parametrize("path", PATHS)
def test_a_record_that_outputs_more_than_max_outputs_per_record_fails_alone(make_transform, path):
    transform = make_transform(FAN_OUT, "fan_out", path=path, max_outputs_per_record=3)

    out, origins, errors = run(
        transform, [make_record(value=bytes([2])), make_record(value=bytes([3])), make_record(value=bytes([0]))]
    )

    assert origins == [0, 0, 0, 2]
    assert errors.rows == [1]
    assert errors.message(1) == (
        "wasm transform 'mask' (fan_out in " + transform.guest.label + "): the record output more than 3 records "
        "(max.outputs.per.record=3) on the record at partition=0 offset=0 (row 1 of the batch)"
    )


def test_max_outputs_per_record_defaults_to_ten_thousand(make_transform):
    transform = make_transform(FAN_OUT, "fan_out")

    assert transform.config["max.outputs.per.record"] == 10_000


#: outputs 21 copies of the record, each with a 32 KiB value (672 KiB a record).
BIG_FAN_OUT = g.guest(
    """(func (export "big") (local $n i32)
    (call $reset)
    (call $set_value (i32.const 0) (i32.const 32768))
    (local.set $n (i32.const 20))
    (loop $more
      (call $emit_record)
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $more (local.get $n))))""",
    imports=("set_value", "emit_record"),
)


@pytest.mark.parametrize("path", PATHS)
def test_a_batch_whose_outputs_pass_max_output_bytes_per_batch_fails_the_records_past_it(make_transform, path):
    bound = 2 * 1024 * 1024
    transform = make_transform(
        BIG_FAN_OUT, "big", path=path, memory_max_bytes=1024 * 1024, max_output_bytes_per_batch=bound
    )

    out, origins, errors = run(transform, [make_record() for _ in range(12)])

    ran = sorted(set(origins))
    assert ran and errors.rows and sorted(ran + errors.rows) == list(range(12))
    assert all(origins.count(row) == 21 for row in ran)
    assert sum(len(r.value) for r in out) <= bound + 16 * 1024 * 1024  # the bound, and one instance's outputs
    assert errors.message(errors.rows[0]).startswith(
        f"wasm transform 'mask' (big in {transform.guest.label}): its outputs take the batch's outputs past "
        f"{bound} bytes (max.output.bytes.per.batch={bound}) on the record at"
    )
