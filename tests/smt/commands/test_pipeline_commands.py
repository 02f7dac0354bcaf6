"""smt run and smt validate: --set, config providers (never shown in clear), -q, and the summary."""

from __future__ import annotations

import json

import pytest

from smt.cli import main
from smt.commands.output import EXIT_INVALID, EXIT_OK

PROVIDERS = "\n".join(
    [
        "config.providers=env,file",
        "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider",
        "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider",
        "",
    ]
)


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_set_overrides_a_key_of_the_file(tmp_path, capsys):
    write(tmp_path / "in.txt", "a\n")
    pipeline = write(tmp_path / "p.properties", "source.path=in.txt\nsink.path=out\nerrors.tolerance=maybe\n")
    assert main(["validate", str(pipeline)]) == EXIT_INVALID
    assert main(["validate", str(pipeline), "--set", "errors.tolerance=all", "--set", "sink.format=jsonl"]) == EXIT_OK
    assert main(["validate", str(pipeline), "--set", "errors.tolerance"]) == 2  # not KEY=VALUE: a usage error
    err = capsys.readouterr().err
    assert "argument --set: expected KEY=VALUE, got 'errors.tolerance'" in err


def test_variables_resolve_before_validation_and_messages_show_them_not_their_values(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SMT_TEST_TOLERANCE", "sometimes-secret")
    write(tmp_path / "secrets.properties", "format=csv-very-secret\n")
    write(tmp_path / "in.txt", "a\n")
    pipeline = write(
        tmp_path / "p.properties",
        PROVIDERS
        + "\n".join(
            [
                "source.path=in.txt",
                "sink.path=out",
                "errors.tolerance=${env:SMT_TEST_TOLERANCE}",
                f"sink.format=${{file:{tmp_path}/secrets.properties:format}}",
                "",
            ]
        ),
    )
    assert main(["validate", str(pipeline)]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "error: errors.tolerance: must be one of none, all; got '${env:SMT_TEST_TOLERANCE}'" in err
    assert f"error: sink.format: unknown file format '${{file:{tmp_path}/secrets.properties:format}}'" in err
    assert "secret" not in err.replace("secrets.properties", "")
    # A --set may use variables too: they are resolved after it is applied.
    monkeypatch.setenv("SMT_TEST_TOLERANCE", "all")
    assert main(["validate", str(pipeline), "--set", "sink.format=${env:SMT_TEST_FORMAT}"]) == EXIT_INVALID
    monkeypatch.setenv("SMT_TEST_FORMAT", "jsonl")
    assert main(["validate", str(pipeline), "--set", "sink.format=${env:SMT_TEST_FORMAT}"]) == EXIT_OK


def test_an_unresolved_variable_is_a_warning_naming_its_key(tmp_path, monkeypatch, capsys, caplog):
    monkeypatch.delenv("SMT_TEST_NOPE", raising=False)
    write(tmp_path / "in.txt", "a\n")
    pipeline = write(
        tmp_path / "p.properties", PROVIDERS + "source.path=in.txt\nsink.path=out\nname=${env:SMT_TEST_NOPE}\n"
    )
    assert main(["validate", str(pipeline)]) == EXIT_OK
    assert "name: ${env:SMT_TEST_NOPE} stays as written: config provider 'env' has no 'SMT_TEST_NOPE'" in caplog.text
    assert capsys.readouterr().out == f"{pipeline}: valid\n"
    assert main(["validate", "-q", str(pipeline)]) == EXIT_OK
    assert capsys.readouterr().out == ""


@pytest.mark.spark
def test_run_summary_says_where_records_went_and_keeps_variables_hidden(spark, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SMT_TEST_OUT", str(tmp_path / "out"))
    write(tmp_path / "in.txt", "a|b\nboom\nc\n")
    pipeline = write(
        tmp_path / "p.properties",
        PROVIDERS
        + "\n".join(
            [
                "name=summary",
                "source.path=in.txt",
                "sink.path=${env:SMT_TEST_OUT}",
                "value.converter=string",
                "transforms=split",
                "transforms.split.type=RegexRouter",
                "transforms.split.regex=(.*)",
                "transforms.split.replacement=routed-$1",
                "errors.tolerance=all",
                "errors.deadletterqueue.path=dead",
                "",
            ]
        ),
    )
    assert main(["run", str(pipeline), "--metrics-json", str(tmp_path / "m.json")]) == EXIT_OK
    out = " ".join(capsys.readouterr().out.split())
    assert "read │ 3 │ from file " in out and "written │ 3 │ to file ${env:SMT_TEST_OUT} (text, errorifexists)" in out
    assert "dead-lettered │ 0 │ to files " in out and "(jsonl, errorifexists as sink.write.mode)" in out
    assert str(tmp_path / "out") not in out
    figures = json.loads((tmp_path / "m.json").read_text())
    assert figures["status"] == "succeeded" and figures["records"]["written"] == 3
    # Small runs show a rate, not 0.
    assert 0 < figures["records_per_second"] and figures["locations"]["sink"].startswith("file ${env:SMT_TEST_OUT}")
    assert main(["run", "-q", str(pipeline), "--set", "sink.write.mode=overwrite"]) == EXIT_OK
    assert capsys.readouterr().out == ""
