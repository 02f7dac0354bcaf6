"""Hostile or careless Wasm guests, run as a user runs them (``smt run``): nothing hangs, nothing is lost.

Each case fails only what it must, with a message that says why: every record read is written or
dead-lettered, and the run ends.  Runs in this process (``smt.cli.main``) reuse the test session's
Spark; the cases that could hang run ``smt`` in a subprocess with a deadline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import wasmtime

from smt.cli import main
from smt.commands.output import EXIT_INVALID
from smt.testing import output_lines

pytestmark = pytest.mark.spark

#: A bound no correct run comes near; a hang fails the test instead of the suite.
RUN_DEADLINE_SECONDS = 300

_ALLOC = """(memory (export "memory") 1)
  (global $bump (mut i32) (i32.const 1024))
  (func $alloc (export "alloc") (param $n i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $bump))
    (global.set $bump (i32.add (local.get $p) (local.get $n)))
    (local.get $p))"""

#: The start function never returns; the entry would copy the value.
START_LOOPS = f"""(module
  (import "env" "get_value" (func $get_value (result i64)))
  {_ALLOC}
  (func $spin (loop $forever (br $forever)))
  (start $spin)
  (func (export "copy") (drop (call $get_value))))"""

#: Emits the record a million times (the adversarial pass's fan-out).
FAN_OUT = f"""(module
  (import "env" "emit_record" (func $emit_record))
  {_ALLOC}
  (func (export "million") (local $n i32)
    (local.set $n (i32.const 1000000))
    (loop $more
      (call $emit_record)
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $more (local.get $n)))))"""

#: Value "bad": unreachable; "oob": reads past its memory; "div": divides by zero; else passes it on.
#: Its functions have names (a name section), as compilers emit them.
CRASHES = f"""(module $crashes
  (import "env" "get_value" (func $get_value (result i64)))
  {_ALLOC}
  (func $first_byte (result i32)
    (i32.load8_u (i32.wrap_i64 (i64.shr_u (call $get_value) (i64.const 32)))))
  (func $check_value (param $c i32)
    (if (i32.eq (local.get $c) (i32.const 98)) (then (unreachable)))
    (if (i32.eq (local.get $c) (i32.const 111)) (then (drop (i32.load (i32.const 0x7ffffff0)))))
    (if (i32.eq (local.get $c) (i32.const 100)) (then (drop (i32.div_u (i32.const 1) (i32.const 0))))))
  (func $transform (export "transform") (call $check_value (call $first_byte))))"""


#: Declares its memory's maximum (4 pages) and grows it on demand in ``alloc``, trapping when it cannot, as
#: a real allocator aborts.  Value "grow...": takes all of its memory for itself (no trap), which leaves the
#: next record's ``alloc`` nowhere to go.  Else passes the value on.
GROWS_TO_ITS_MAXIMUM = """(module
  (import "env" "get_value" (func $get_value (result i64)))
  (memory (export "memory") 1 4)
  (global $bump (mut i32) (i32.const 1024))
  (func $alloc (export "alloc") (param $n i32) (result i32)
    (local $p i32) (local $end i32)
    (local.set $p (global.get $bump))
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (if (i32.gt_u (local.get $end) (i32.shl (memory.size) (i32.const 16)))
      (then (if (i32.eq (memory.grow (i32.add (i32.shr_u (i32.sub (local.get $end)
                          (i32.shl (memory.size) (i32.const 16))) (i32.const 16)) (i32.const 1))) (i32.const -1))
              (then (unreachable)))))
    (global.set $bump (local.get $end))
    (local.get $p))
  (func (export "transform")
    (if (i32.eq (i32.load8_u (i32.wrap_i64 (i64.shr_u (call $get_value) (i64.const 32)))) (i32.const 103))
      (then (drop (memory.grow (i32.sub (i32.const 4) (memory.size))))
            (global.set $bump (i32.shl (memory.size) (i32.const 16)))))))"""


def write_guest(tmp_path: Path, name: str, wat: str) -> Path:
    path = tmp_path / f"{name}.wasm"
    path.write_bytes(wasmtime.wat2wasm(wat))
    return path


def write_pipeline(tmp_path: Path, guest: Path, function: str, lines: list[dict], **extra: str) -> Path:
    """A jsonl → wasm → text pipeline, errors to a dead-letter folder."""
    (tmp_path / "in").mkdir(exist_ok=True)
    (tmp_path / "in" / "records.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    props = {
        "source.path": "in",
        "source.format": "jsonl",
        "sink.path": "out",
        "sink.format": "text",
        "transforms": "guest",
        "transforms.guest.type": "wasm",
        "transforms.guest.module.path": str(guest),
        "transforms.guest.function.name": function,
        "transforms.guest.timeout.ms": "500",
        "errors.tolerance": "all",
        "errors.deadletterqueue.path": "dead",
        "errors.deadletterqueue.context.headers.enable": "true",
        "spark.master": "local[2]",
        "spark.ui.enabled": "false",
        **extra,
    }
    pipeline = tmp_path / "pipeline.properties"
    pipeline.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
    return pipeline


def records(*values: str, partition: int = 0, first_offset: int = 0) -> list[dict]:
    return [
        {"topic": "in", "partition": partition, "offset": first_offset + i, "value": value}
        for i, value in enumerate(values)
    ]


def dead_letters(tmp_path: Path) -> list[tuple[str, dict[str, str]]]:
    """(value, context headers) of each dead letter."""
    letters = [json.loads(line) for line in output_lines(tmp_path / "dead")]
    return [(letter["value"], {h["key"]: h["value"] for h in letter["headers"]}) for letter in letters]


def run_in_subprocess(args: list[str], cwd: Path, prelude: str = "") -> subprocess.CompletedProcess:
    """``smt ARGS`` in a fresh interpreter (``prelude`` runs first), killed past the deadline."""
    code = f"{prelude}\nimport sys\nfrom smt.cli import main\nsys.exit(main({args!r}))"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=RUN_DEADLINE_SECONDS,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )


def test_a_start_function_that_never_returns_on_the_executors_fails_the_batch_instead_of_hanging(tmp_path):
    # The adversarial pass's guest looped only after a moment, so the driver's check of the module
    # passed and the executors' instances hung.  Skipping the driver's check reproduces that
    # exactly: the executors (Spark's Python workers, other processes) meet the loop first.
    guest = write_guest(tmp_path, "start_loops", START_LOOPS)
    pipeline = write_pipeline(tmp_path, guest, "copy", records("a", "b", "c"))
    skip_driver_check = (
        "import host_functions.kafka_connect.guest_abi as abi\n"
        "assert callable(abi._check_instance)\n"  # the patch must replace the real check, not add a name
        "abi._check_instance = lambda *a: None"
    )

    done = run_in_subprocess(["run", str(pipeline)], tmp_path, prelude=skip_driver_check)

    assert done.returncode == 0, done.stderr[-3000:]
    assert output_lines(tmp_path / "out") == []
    dead = dead_letters(tmp_path)
    assert sorted(value for value, _ in dead) == ["a", "b", "c"]
    for _, headers in dead:
        assert headers["__connect.errors.stage"] == "TRANSFORMATION"
        assert (
            "the guest could not start (instantiation and start function): timed out after 500 ms (timeout.ms)"
        ) in headers["__connect.errors.exception.message"]


def test_the_driver_refuses_a_start_function_that_never_returns(tmp_path, capsys):
    guest = write_guest(tmp_path, "start_loops", START_LOOPS)
    pipeline = write_pipeline(tmp_path, guest, "copy", records("a"))

    assert main(["validate", str(pipeline)]) == EXIT_INVALID
    assert (
        "error: transforms.guest.module.path: WebAssembly module 'start_loops.wasm' cannot be instantiated: "
        "the guest could not start (instantiation and start function): timed out after 500 ms (timeout.ms)"
    ) in capsys.readouterr().err


def test_a_record_fanning_out_past_max_outputs_per_record_fails_alone_naming_the_key(spark, tmp_path):
    guest = write_guest(tmp_path, "fan_out", FAN_OUT)
    pipeline = write_pipeline(tmp_path, guest, "million", records("x"))

    assert main(["run", str(pipeline)]) == 0

    assert output_lines(tmp_path / "out") == []  # what it emitted before failing is not output
    [(value, headers)] = dead_letters(tmp_path)
    assert value == "x"
    assert headers["__connect.errors.stage"] == "TRANSFORMATION"
    assert (
        "the record output more than 10000 records (max.outputs.per.record=10000)"
        in headers["__connect.errors.exception.message"]
    )


def test_a_guest_crash_keeps_its_cause_its_function_names_and_the_records_partition_and_offset(spark, tmp_path):
    guest = write_guest(tmp_path, "crashes", CRASHES)
    pipeline = write_pipeline(
        tmp_path, guest, "transform", records("fine", "bad", "oob", "div", partition=3, first_offset=40)
    )

    assert main(["run", str(pipeline)]) == 0

    assert output_lines(tmp_path / "out") == ["fine"]
    messages = {value: headers["__connect.errors.exception.message"] for value, headers in dead_letters(tmp_path)}
    where = "; guest backtrace: check_value <- transform on the record at partition=3 offset={} (row {} of the batch)"
    assert messages["bad"].endswith("trap: unreachable instruction executed (the guest aborted)" + where.format(41, 1))
    assert messages["oob"].endswith(
        "out-of-bounds memory access (bad pointer): memory fault at wasm address 0x7ffffff0 in linear memory of "
        "size 0x10000: out of bounds memory access" + where.format(42, 2)
    )
    assert messages["div"].endswith("trap: integer divide by zero" + where.format(43, 3))
    assert all("error while executing" not in message for message in messages.values())


@pytest.mark.parametrize(
    "make_path", [lambda tmp_path: "/dev/zero", lambda tmp_path: _fifo(tmp_path)], ids=["dev-zero", "fifo"]
)
def test_a_module_path_that_is_not_a_regular_file_is_refused_at_once(tmp_path, make_path):
    module = make_path(tmp_path)
    pipeline = write_pipeline(tmp_path, Path(module), "copy", records("a"))

    done = run_in_subprocess(["run", str(pipeline)], tmp_path)

    assert done.returncode == EXIT_INVALID
    kind = "a character device" if module == "/dev/zero" else "a FIFO"
    assert done.stderr.strip() == (
        f"error: transforms.guest.module.path: cannot read WebAssembly module '{module}': it is {kind}, "
        f"not a regular file"
    )


def test_a_module_larger_than_module_max_bytes_is_refused(tmp_path, capsys):
    guest = write_guest(tmp_path, "fan_out", FAN_OUT)
    pipeline = write_pipeline(tmp_path, guest, "million", records("a"), **{"transforms.guest.module.max.bytes": "64"})

    assert main(["validate", str(pipeline)]) == EXIT_INVALID
    assert capsys.readouterr().err.strip() == (
        f"error: transforms.guest.module.max.bytes: WebAssembly module '{guest}' is larger than module.max.bytes=64"
    )


def _fifo(tmp_path: Path) -> str:
    path = tmp_path / "module.fifo"
    os.mkfifo(path)
    return str(path)


def test_a_guest_an_earlier_record_left_without_memory_is_replaced_and_later_records_pass(spark, tmp_path):
    guest = write_guest(tmp_path, "grows", GROWS_TO_ITS_MAXIMUM)
    pipeline = write_pipeline(tmp_path, guest, "transform", records("fine", "grow", "after1", "after2", "grow", "z"))

    assert main(["run", str(pipeline)]) == 0

    assert dead_letters(tmp_path) == []
    assert sorted(output_lines(tmp_path / "out")) == sorted(["fine", "grow", "after1", "after2", "grow", "z"])
