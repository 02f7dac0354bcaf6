"""The smt command: validate, plugins, run, and one-line errors."""

import json
import subprocess
import sys

import pytest

from smt.cli import EXIT_INVALID, main


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_validate_accepts_a_good_file(tmp_path, capsys):
    write(tmp_path / "in.txt", "a line\n")
    pipeline = write(tmp_path / "p.properties", "source.path=in.txt\nsink.path=out\nvalue.converter=string\n")
    assert main(["validate", str(pipeline)]) == 0
    assert capsys.readouterr().out.strip() == f"{pipeline}: valid"


def test_validate_lists_every_problem_with_its_key(tmp_path, capsys):
    pipeline = write(
        tmp_path / "p.properties",
        "\n".join(
            [
                "source.path=in.txt",
                "sink.format=csv",
                "errors.tolerance=maybe",
                "transforms=a,b",
                "transforms.a.type=NoSuchTransform",
                "value.converter=nope",
                "",
            ]
        ),
    )
    assert main(["validate", str(pipeline)]) == EXIT_INVALID
    err = capsys.readouterr().err.splitlines()
    assert "error: errors.tolerance: must be one of none, all; got 'maybe'" in err
    assert "error: sink.path: is required and has no default" in err
    assert any(line.startswith("error: sink.format: unknown file format 'csv'") for line in err)
    assert any(line.startswith("error: transforms.a.type: unknown transform 'NoSuchTransform'") for line in err)
    assert "error: transforms.b.type: is required and has no default" in err
    assert any(line.startswith("error: value.converter: unknown converter 'nope'") for line in err)


def test_a_malformed_properties_file_is_one_line_naming_file_and_line(tmp_path, capsys):
    pipeline = write(tmp_path / "bad.properties", "source.path=in.txt\nsink.path=\\u12\n")
    assert main(["validate", str(pipeline)]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "bad.properties" in err and "line 2" in err and "Traceback" not in err


def test_missing_file_is_one_line(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope.properties")]) != 0
    err = capsys.readouterr().err
    assert "nope.properties" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_plugins_lists_kinds_names_and_origins(capsys):
    assert main(["plugins"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.split()[:2] == ["converter", "string"] and "converters._plugin" in line for line in lines)
    assert any(line.split()[:2] == ["source", "file"] for line in lines)


def test_plugins_docs_come_from_the_config_declarations(capsys):
    assert main(["plugins", "--docs"]) == 0
    out = capsys.readouterr().out
    assert "`<side>.converter.converter.encoding`" in out and "The name of the character set" in out


@pytest.mark.spark
def test_run_writes_output_summary_and_metrics_json(tmp_path):
    write(tmp_path / "in.txt", "hello\nworld\n")
    pipeline = write(
        tmp_path / "p.properties",
        "\n".join(
            [
                "source.path=in.txt",
                "sink.path=out",
                "value.converter=string",
                "spark.master=local[1]",
                "spark.ui.enabled=false",
                "",
            ]
        ),
    )
    done = subprocess.run(
        [sys.executable, "-m", "smt", "run", "-v", str(pipeline), "--metrics-json", str(tmp_path / "m.json")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "read" in done.stdout and "written" in done.stdout
    # -v: our step-by-step log, in order.
    steps = [line.split(": ", 1)[1] for line in done.stderr.splitlines() if line.startswith("INFO smt.")]
    expected = ["read ", "source file, sink file", "converters: ", "transforms: none", "errors.tolerance=none",
                "checked: ", "Spark's own output goes to ",
                "a small run (12 bytes of input): Spark's JVM starts with -XX:TieredStopAtLevel=1",
                "starting Spark: master local[1]", "Spark ",
                "reading the source in 1 Python task(s)", "running the Spark job", "written in "]  # fmt: skip
    found = [next((index for index, step in enumerate(steps) if step.startswith(e)), None) for e in expected]
    assert None not in found and found == sorted(found), "\n".join(steps)
    lines = sorted(line for f in (tmp_path / "out").glob("part-*") for line in f.read_text().splitlines())
    assert lines == ["hello", "world"]
    figures = json.loads((tmp_path / "m.json").read_text())
    assert figures["records"]["read"] == 2
    # The summary's time is the whole command's: Python's and Spark's start included.
    assert figures["total_seconds"] > figures["seconds"]
    assert f"{figures['total_seconds']:.2f} s in all" in done.stdout


@pytest.mark.spark
def test_run_failure_is_one_clear_line_and_exit_code(tmp_path):
    pipeline = write(tmp_path / "p.properties", "source.path=missing.txt\nsink.path=out\nspark.master=local[1]\n")
    done = subprocess.run(
        [sys.executable, "-m", "smt", "run", str(pipeline)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == EXIT_INVALID  # a missing input is found when the pipeline is built, as by `smt validate`
    assert "error: source.path: cannot read" in done.stderr and "missing.txt" in done.stderr
    assert "Traceback" not in done.stderr


def test_validate_verbose_logs_each_step(tmp_path):
    write(tmp_path / "in.txt", "a\n")
    pipeline = write(tmp_path / "p.properties", "source.path=in.txt\nsink.path=out\ntransforms=up\n"
                     "transforms.up.type=MaskField$Value\ntransforms.up.fields=a\n")  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "smt", "validate", str(pipeline), "-v"], capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"INFO smt.pipeline.spec: read {pipeline}: 5 keys",
        "INFO smt.pipeline.spec: source file, sink file, mode batch",
        "INFO smt.pipeline.spec: converters: key ByteArrayConverter, value ByteArrayConverter, header "
        "SimpleHeaderConverter",
        "INFO smt.pipeline.spec: transforms: up",
        "INFO smt.pipeline.spec: errors.tolerance=none, dead letters: none",
        "INFO smt.pipeline.spec: checked: every plugin configured, input present, outputs not overlapping inputs, "
        "output folders writable",
    ]


def test_an_unknown_key_of_ours_fails_validate_with_a_suggestion(tmp_path, capsys):
    write(tmp_path / "in.txt", "a\n")
    pipeline = write(
        tmp_path / "p.properties",
        "\n".join(
            [
                "source.path=in.txt",
                "sink.path=out",
                "transforms=mask",
                "transforms.mask.type=MaskField$Value",
                "transforms.mask.fields=card",
                "transforms.mask.feilds=card",
                "spark.sql.whatever.spark.decides=1",
                "",
            ]
        ),
    )
    assert main(["validate", str(pipeline)]) == EXIT_INVALID
    assert capsys.readouterr().err.splitlines() == [
        "error: transforms.mask.feilds: unknown key: no plugin reads it, so it has no effect; "
        "did you mean 'transforms.mask.fields'?"
    ]


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_typo_in_errors_tolerance_fails_validate_and_run_before_spark(tmp_path, command):
    write(tmp_path / "in.txt", "a\n")
    pipeline = write(tmp_path / "p.properties", "source.path=in.txt\nsink.path=out\nerrors.tolerence=all\n")
    done = subprocess.run([sys.executable, "-m", "smt", command, str(pipeline)], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == EXIT_INVALID
    assert done.stderr.splitlines() == [
        "error: errors.tolerence: unknown key: no plugin reads it, so it has no effect; "
        "did you mean 'errors.tolerance'?"
    ]
    assert not (tmp_path / "out").exists()


def test_validate_strict_makes_unknown_and_deprecated_keys_errors(tmp_path, capsys):
    write(tmp_path / "in.txt", "a\n")
    pipeline = write(
        tmp_path / "p.properties",
        "\n".join(
            [
                "source.path=in.txt",
                "sink.path=out",
                "transforms=r",
                "transforms.r.type=ReplaceField$Value",
                "transforms.r.blacklist=card",
                "",
            ]
        ),
    )
    assert main(["validate", "--strict", str(pipeline)]) == EXIT_INVALID
    assert capsys.readouterr().err.splitlines() == [
        "error: transforms.r.blacklist: is deprecated (removed in Kafka 4.0, which ignores it; honoured here "
        "with its Kafka 3.x meaning); use 'transforms.r.exclude' instead"
    ]


def test_validate_errors_come_with_the_warnings_found_beside_them(tmp_path, capsys):
    write(tmp_path / "in.txt", "a\n")
    pipeline = write(
        tmp_path / "p.properties",
        "source.path=in.txt\ntransforms=r\ntransforms.r.type=ReplaceField$Value\ntransforms.r.blacklist=card\n",
    )
    assert main(["validate", str(pipeline)]) == EXIT_INVALID
    assert capsys.readouterr().err.splitlines() == [
        "warning: transforms.r.blacklist: is deprecated (removed in Kafka 4.0, which ignores it; honoured here "
        "with its Kafka 3.x meaning); use 'transforms.r.exclude' instead",
        "error: sink.path: is required and has no default",
    ]
