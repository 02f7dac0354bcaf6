"""Kafka Connect files as users write them (#34 item 1): every one validates, and the local ones run.

Kafka Connect hands a converter every ``*.converter.*`` key and only logs the
ones it does not read; these files carry such keys (see
``connect_files/README.md``).  Each file's first line says what to expect.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from smt.cli import main
from smt.errors import ConfigError
from smt.pipeline import PipelineSpec

CORPUS = Path(__file__).resolve().parent / "connect_files"
FILES = sorted(CORPUS.glob("*.properties"))
_EXPECT = re.compile(r"# expect: (?:(?P<validate>validate) )?(?P<figures>(?:\w+=\d+ ?)+)")


def expectation(path: Path) -> tuple[bool, dict[str, int]]:
    """(whether the file runs here, the figures it should give) from its first line."""
    found = _EXPECT.match(path.read_text(encoding="utf-8").splitlines()[0])
    assert found, f"{path.name}: the first line must say what to expect"
    figures = dict(pair.split("=") for pair in found["figures"].split())
    return not found["validate"], {k: int(v) for k, v in figures.items()}


@pytest.fixture
def corpus(tmp_path) -> Path:
    folder = tmp_path / "connect_files"
    shutil.copytree(CORPUS, folder)
    return folder


def test_the_corpus_has_files_to_run_and_files_to_validate():
    runs = [expectation(path)[0] for path in FILES]
    assert runs.count(True) >= 3 and runs.count(False) >= 3


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_file_validates_with_its_converter_keys_as_warnings(path, corpus, capsys):
    _, figures = expectation(path)
    assert main(["validate", str(corpus / path.name)]) == 0
    out, err = capsys.readouterr()
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == figures["warnings"], err
    assert all(re.search(r"was supplied but isn't a known config of the \w+ converter", w) for w in warnings)
    assert out.strip().endswith(
        ": valid" + (f" ({len(warnings)} warning{'s' * (len(warnings) > 1)})" if warnings else "")
    )


@pytest.mark.parametrize("path", [p for p in FILES if expectation(p)[1]["warnings"]], ids=lambda p: p.stem)
def test_strict_refuses_the_keys_no_converter_reads(path, corpus, capsys):
    assert main(["validate", "--strict", str(corpus / path.name)]) == 3
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error: ")]
    assert len(errors) == expectation(path)[1]["warnings"]
    assert all(re.match(r"error: \w+\.converter\.[\w.]+: was supplied but isn't a known config", e) for e in errors)


@pytest.mark.spark
@pytest.mark.parametrize("path", [p for p in FILES if expectation(p)[0]], ids=lambda p: p.stem)
def test_the_local_files_run_and_account_for_every_record(path, corpus, spark, capsys):
    # `smt run` itself, on the session the tests share (it is this process's: the run takes it over).
    _, figures = expectation(path)
    metrics = corpus / f"{path.stem}.json"
    assert main(["run", "-q", str(corpus / path.name), "--metrics-json", str(metrics)]) == 0, capsys.readouterr().err
    records = json.loads(metrics.read_text())["records"]
    assert (records["read"], records["written"], records["dead_lettered"]) == (
        figures["read"],
        figures["written"],
        figures["dead_lettered"],
    )


def test_an_unknown_key_outside_the_converters_is_still_an_error(corpus):
    text = (corpus / "string-key-json-value.properties").read_text(encoding="utf-8")
    (corpus / "typo.properties").write_text(text + "errors.tolerence=all\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"errors\.tolerence: unknown key: .*did you mean 'errors\.tolerance'"):
        PipelineSpec.from_properties(corpus / "typo.properties")
