"""What a second run meets: `smt validate` finds what `smt run` would refuse, a failed run leaves
nothing behind, and dead letters follow the sink's write mode instead of piling up."""

import json
import subprocess
import sys

import pytest

from smt.cli import EXIT_FAILED, EXIT_INVALID, EXIT_OK, main
from smt.pipeline.streaming import FINGERPRINT_FILE


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def smt(*args, cwd):
    return subprocess.run([sys.executable, "-m", "smt", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def batch_pipeline(folder, *extra):
    write(folder / "in.txt", '{"n": 1}\nnot json\n{"n": 2}\n')
    lines = ["source.path=in.txt", "sink.path=out", "value.converter=json", "value.converter.schemas.enable=false",
             "spark.master=local[1]", "spark.ui.enabled=false", *extra]  # fmt: skip
    return write(folder / "p.properties", "\n".join(lines) + "\n")


def test_validate_refuses_existing_output_folders_that_run_would(tmp_path):
    pipeline = batch_pipeline(tmp_path, "errors.tolerance=all", "errors.deadletterqueue.path=dead")
    (tmp_path / "out").mkdir()
    (tmp_path / "dead").mkdir()

    done = smt("validate", "p.properties", cwd=tmp_path)

    assert done.returncode == EXIT_INVALID
    assert done.stderr.splitlines() == [
        f"error: sink.path: '{tmp_path / 'out'}' already exists and sink.write.mode is errorifexists; "
        "set sink.write.mode=overwrite to replace it, or append",
        f"error: errors.deadletterqueue.path: '{tmp_path / 'dead'}' already exists and sink.write.mode is "
        "errorifexists; set sink.write.mode=overwrite to replace it, or append",
    ]
    assert smt("validate", str(pipeline), "--set", "sink.write.mode=overwrite", cwd=tmp_path).returncode == EXIT_OK


def streaming_pipeline(folder, *extra):
    (folder / "in").mkdir(exist_ok=True)
    lines = ["mode=streaming", "checkpoint.location=checkpoint", "source.path=in", "sink.path=out",
             "transforms=mask", "transforms.mask.type=MaskField$Value", "transforms.mask.fields=card",
             "value.converter=json", "value.converter.schemas.enable=false", *extra]  # fmt: skip
    return write(folder / "p.properties", "\n".join(lines) + "\n")


def test_validate_checks_a_checkpoint_against_the_pipeline_without_spark(tmp_path):
    streaming_pipeline(tmp_path)
    checkpoint = tmp_path / "checkpoint"
    (checkpoint / "offsets").mkdir(parents=True)  # a query ran
    stored = {"mode": "streaming", "sink.path": str(tmp_path / "out"), "source.path": str(tmp_path / "elsewhere"),
              "transforms": "mask", "transforms.mask.fields": "iban", "transforms.mask.type": "MaskField$Value"}  # fmt: skip
    write(checkpoint / FINGERPRINT_FILE, json.dumps(stored))

    done = smt("validate", "p.properties", cwd=tmp_path)

    assert done.returncode == EXIT_INVALID
    assert done.stderr.splitlines() == [
        f"error: checkpoint.location: '{checkpoint}' holds the offsets of another source or sink "
        f"(source.path changed '{tmp_path / 'elsewhere'}' → '{tmp_path / 'in'}'); use a new checkpoint.location, "
        "or delete this one to start over"
    ]
    # The same source and sink: transforms, converters and errors.* may change.
    write(checkpoint / FINGERPRINT_FILE, json.dumps({**stored, "source.path": str(tmp_path / "in")}))
    assert smt("validate", "p.properties", cwd=tmp_path).returncode == EXIT_OK


@pytest.mark.spark
def test_a_failed_run_leaves_nothing_that_blocks_the_next(spark, tmp_path, capsys):
    pipeline = batch_pipeline(tmp_path)  # errors.tolerance=none: the bad line stops the run

    assert main(["run", str(pipeline)]) == EXIT_FAILED
    # The bad line named as a user finds it: file and line number.
    assert f"on the record read from line 2 of {tmp_path / 'in.txt'}: " in capsys.readouterr().err
    assert not (tmp_path / "out").exists()

    assert main(["run", str(pipeline), "--set", "errors.tolerance=all"]) == EXIT_OK
    assert sorted(
        json.loads(line)["n"] for f in (tmp_path / "out").glob("part-*") for line in f.read_text().split()
    ) == [1, 2]


@pytest.mark.spark
def test_dead_letters_follow_the_sink_write_mode_across_reruns(spark, tmp_path):
    pipeline = batch_pipeline(
        tmp_path, "errors.tolerance=all", "errors.deadletterqueue.path=dead", "sink.write.mode=overwrite"
    )
    for _ in range(2):
        assert main(["run", str(pipeline), "--metrics-json", str(tmp_path / "m.json")]) == EXIT_OK
    dead = [line for f in (tmp_path / "dead").glob("part-*") for line in f.read_text().splitlines()]
    assert [json.loads(line)["value"] for line in dead] == ["not json"]
    # What the summary shows in its dead-lettered row (a long path wraps in the table).
    where = json.loads((tmp_path / "m.json").read_text())["locations"]["dead_letters"]
    assert where == f"files {tmp_path / 'dead'} (jsonl, overwrite as sink.write.mode)"

    assert main(["run", str(pipeline), "--set", "sink.write.mode=append"]) == EXIT_OK
    assert len([line for f in (tmp_path / "dead").glob("part-*") for line in f.read_text().splitlines()]) == 2
