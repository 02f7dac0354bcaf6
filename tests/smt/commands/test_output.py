"""How the smt command reports: exit codes, --version, help for every argument, one line per failure."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from smt.cli import _parser, main
from smt.commands.output import EXIT_FAILED, EXIT_INVALID, EXIT_OK, EXIT_USAGE


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_version_names_the_package_and_its_engines(capsys):
    assert main(["--version"]) == EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith("smt (spark-smt) ") and "PySpark 4." in out and "wasmtime " in out


@pytest.mark.parametrize(
    "argv",
    [
        ["frobnicate"],
        ["run"],
        ["validate", "p.properties", "--nope"],
        ["bench", "nope"],
        ["local", "kafka", "restart"],
        ["wasm", "init", "x"],
        [],
    ],
)
def test_usage_errors_exit_2(argv, capsys):
    assert main(argv) == EXIT_USAGE
    assert "usage: smt" in capsys.readouterr().err


def test_an_invalid_configuration_exits_3_and_a_failed_command_1(tmp_path, capsys):
    assert main(["validate", str(write(tmp_path / "p.properties", "sink.format=csv\n"))]) == EXIT_INVALID
    assert main(["wasm", "build", str(tmp_path)]) == EXIT_FAILED
    err = capsys.readouterr().err.splitlines()
    assert "error: sink.path: is required and has no default" in err
    assert err[-1] == f"error: no guest sources (.c, .zig, .go) in {tmp_path}"


def _actions(parser: argparse.ArgumentParser, path: str):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction):
            yield path, action


def test_every_argument_of_every_command_has_help_text():
    missing = [(path, action.dest) for path, action in _actions(_parser(), "smt")
               if not action.help or action.help == argparse.SUPPRESS]  # fmt: skip
    assert not missing


def test_bench_help_lists_the_areas(capsys):
    assert main(["bench", "--help"]) == EXIT_OK
    out = " ".join(capsys.readouterr().out.split())
    assert "benchmark areas to run: wasm, converters, builtins, pipeline, kafka, tables, cdc, startup" in out
    assert "'cdc' upserts Debezium change events (ExtractNewRecordState, rewrite mode) into Delta" in out


def test_an_unexpected_error_is_one_line_that_says_it_is_a_bug(monkeypatch, capsys):
    import smt.commands.plugins as plugins

    def broken(args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(plugins, "plugins_command", broken)
    assert main(["plugins"]) == EXIT_FAILED
    assert capsys.readouterr().err.splitlines() == [
        "error: division by zero",
        "hint: this is a bug in spark-smt: please report it with the output of --debug",
    ]
    assert main(["plugins", "--debug"]) == EXIT_FAILED
    assert "Traceback (most recent call last)" in capsys.readouterr().err


@pytest.mark.spark
def test_a_failed_record_is_one_line_and_a_hint_with_spark_hidden(tmp_path):
    write(tmp_path / "in.txt", '{"a":1}\nnot json\n{"a":2}\n')
    pipeline = write(
        tmp_path / "p.properties",
        "\n".join(
            [
                "name=noisy",
                "source.path=in.txt",
                "sink.path=out",
                "value.converter=json",
                "value.converter.schemas.enable=false",
                "spark.master=local[1]",
                "",
            ]
        ),
    )
    metrics = tmp_path / "m.json"
    done = subprocess.run([sys.executable, "-m", "smt", "run", str(pipeline), "--metrics-json", str(metrics)],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == EXIT_FAILED
    error, hint = done.stderr.splitlines()  # nothing else: no banner, no warnings, no tracebacks
    assert error.startswith("error: Error in VALUE_CONVERTER stage with converters.json.converter.JsonConverter "
                            f"on the record read from line 2 of {tmp_path / 'in.txt'}: ")  # fmt: skip
    assert error.endswith("in 'not json'")
    assert hint.startswith("hint: errors.tolerance=none stops the run at the first failed record; ")
    log_file = hint.split("Spark's log: ")[1].split(" ")[0]
    with open(log_file, encoding="utf-8") as log:
        assert "PythonException" in log.read()  # Spark's side of the story is kept, not shown
    figures = json.loads(metrics.read_text())
    assert figures["status"] == "failed" and "VALUE_CONVERTER" in figures["error"]
    assert figures["locations"]["sink"] == f"file {tmp_path / 'out'} (text, errorifexists)"
