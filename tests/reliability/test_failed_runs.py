"""Runs that fail say why, in one line naming the cause, and count only what they committed.

A full disk is a small tmpfs mounted for the test (root only: mounting needs it).
"""

import json
import os
import re
import subprocess

import pytest

from smt.commands.output import EXIT_FAILED, EXIT_INVALID
from smt.data.nesting import MAX_NESTING_DEPTH
from tests.host_functions import wat_guests as g
from tests.reliability.conftest import RUN_BOUND_SECONDS, smt_process


@pytest.fixture
def full_disk(tmp_path):
    """A 256 KiB file system: what is written past that fails with ENOSPC."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "small-disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", "--lazy", str(mount)], check=True)  # Spark may still hold a file open


LINES = "".join(json.dumps({"id": n, "pad": "x" * 200}) + "\n" for n in range(3000))


def failed_figures(probe, pipeline):
    outcome = probe.smt("run", str(pipeline), "--metrics-json", str(probe.root / "metrics.json"))
    return outcome, json.loads((probe.root / "metrics.json").read_text())


@pytest.mark.spark
def test_a_full_disk_is_named_with_the_folder_and_nothing_is_counted_that_is_not_there(probe, spark, full_disk):
    probe.input("events.txt", LINES)
    sink_on_it = probe.pipeline(f"source.path=in\nsource.format=text\nsink.path={full_disk}/out\nsink.format=text\n")
    dead_letters_on_it = probe.pipeline(
        "source.path=in\nsource.format=text\nsink.path=out\nsink.format=text\n"
        "value.converter=json\nvalue.converter.schemas.enable=false\n"
        "transforms=cast\ntransforms.cast.type=Cast$Value\ntransforms.cast.spec=pad:int32\n"
        f"errors.tolerance=all\nerrors.deadletterqueue.path={full_disk}/dlq\n"
        "errors.deadletterqueue.context.headers.enable=true\n",
        name="dead-letters.properties",
    )
    # The sink on the full disk: the run fails naming the cause and the folder, not Spark's TASK_WRITE_FAILED.
    outcome, figures = failed_figures(probe, sink_on_it)
    assert outcome.code == EXIT_FAILED
    assert outcome.error_lines == [f"error: No space left on device while writing to {full_disk}/out"]
    assert figures["status"] == "failed"
    assert (figures["records"]["written"], figures["records"]["output_rows"]) == (0, 0)
    assert set(figures["records_uncertain"]) == {"read", "filtered", "failed"}

    # The dead letters on the full disk: every record failed, none is in the folder, none is counted there.
    outcome, figures = failed_figures(probe, dead_letters_on_it)
    assert outcome.error_lines == [f"error: No space left on device while writing to {full_disk}/dlq"]
    assert figures["records"] == {
        "read": 3000, "written": 0, "output_rows": 0, "filtered": 0, "failed": 3000, "dead_lettered": 0,
    }  # fmt: skip
    assert figures["records_uncertain"] == []
    assert [p for p in (full_disk / "dlq").rglob("part-*") if p.stat().st_size] == []
    probe.assert_input_unchanged()


@pytest.mark.spark
@pytest.mark.kafka
def test_a_streaming_kafka_run_stopped_by_a_record_says_which_without_tracebacks(tmp_path, kafka_broker, pytestconfig):
    topic = kafka_broker.create_topic(kafka_broker.unique_topic("stopped"))
    poison = '{"x":' + "[" * (MAX_NESTING_DEPTH + 1) + "]" * (MAX_NESTING_DEPTH + 1) + "}"
    kafka_broker.produce(topic, [{"value": '{"a":1}'}, {"value": poison}])
    servers = kafka_broker.bootstrap_servers
    pipeline = tmp_path / "pipeline.properties"
    pipeline.write_text(
        "mode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
        f"source=kafka\nsource.topics={topic}\nsource.kafka.bootstrap.servers={servers}\n"
        f"sink=kafka\nsink.topic={topic}-out\nsink.kafka.bootstrap.servers={servers}\nsink.check.topics=false\n"
        "value.converter=json\nvalue.converter.schemas.enable=false\n",
        encoding="utf-8",
    )
    process = smt_process(["run", str(pipeline)], tmp_path, str(pytestconfig.rootpath))
    _, err = process.communicate(timeout=RUN_BOUND_SECONDS)
    assert process.returncode == EXIT_FAILED
    assert "Traceback" not in err and "py4j" not in err, err[-3000:]
    [line] = [line for line in err.splitlines() if line.startswith("error: ")]
    assert re.search(
        r"a record failed before it was written \(not a Kafka problem\): StageError: Error in VALUE_CONVERTER stage "
        rf"with .*JsonConverter on record topic='{topic}' partition=0 offset=1: .*nested more than 1000 levels deep",
        line,
    ), line


def guest_pipeline(probe, module_path):
    return probe.pipeline(
        "source.path=in\nsource.format=text\nsink.path=out\nsink.format=text\n"
        f"transforms=guest\ntransforms.guest.type=wasm\ntransforms.guest.module.path={module_path}\n"
        "transforms.guest.function.name=f\n"
    )


def test_a_module_path_that_cannot_be_read_names_the_key(probe):
    outcome = probe.smt("validate", str(guest_pipeline(probe, "/proc/self/mem")))
    assert outcome.code == EXIT_INVALID
    assert outcome.error_lines == [
        "error: transforms.guest.module.path: cannot read WebAssembly module '/proc/self/mem': Input/output error"
    ]


def test_a_guest_whose_start_function_reads_the_record_is_a_guest_error(probe):
    early = probe.root / "early.wat"
    early.write_text(
        g.guest('(func (export "f")) (func $early (drop (call $get_value))) (start $early)', ("get_value",))
    )
    outcome = probe.smt("validate", str(guest_pipeline(probe, early)))
    assert outcome.code == EXIT_INVALID
    [line] = outcome.error_lines
    assert line.startswith("error: transforms.guest.module.path: WebAssembly module 'early.wat' cannot be instantiated")
    assert "called from the guest's start function, and there is no record until 'f' is called" in line
    assert "bug in spark-smt" not in outcome.err
