"""The reliability suite's probe: a user's folder, a pipeline file, and `smt` run on it as a user runs it.

Every probe checks the invariants it protects:

- accounting: records read = written + filtered + dead-lettered (every failed
  record reaches the dead-letter queue), checked against the files written,
  not only the counters;
- the input is untouched: every file under ``in/`` (and the pipeline file)
  has the bytes it had before the run;
- the run ends within a bound (a generous one: a hang fails, a slow run does not).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

import pytest

from smt.cli import main
from tests.connectors.table.postgres import postgres  # noqa: F401 - the fixture, for the JDBC probes

#: A run that takes longer than this is taken to hang (runs take seconds; CI machines are slow).
RUN_BOUND_SECONDS = 300


@dataclasses.dataclass
class Outcome:
    """What one `smt` command did: exit code, output, and (for a run) its figures."""

    code: int
    out: str
    err: str
    records: dict | None = None

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.startswith("error: ")]


class Probe:
    """A folder laid out as a user's: ``in/`` (input), the pipeline file, outputs beside them."""

    def __init__(self, root: Path, capsys) -> None:
        self.root = root
        self.capsys = capsys
        (root / "in").mkdir()
        self._before: dict[str, str] | None = None

    def input(self, name: str, content: bytes | str) -> Path:
        path = self.root / "in" / name
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    def pipeline(self, text: str, name: str = "pipeline.properties") -> Path:
        path = self.root / name
        path.write_text(text, encoding="utf-8")
        return path

    def smt(self, *args: str) -> Outcome:
        """``smt ARGS`` in this process (the shared Spark session), bounded in time."""
        self._before = self._before or self.snapshot()
        self.capsys.readouterr()
        code = within(RUN_BOUND_SECONDS, lambda: main(list(args)))
        captured = self.capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    def run(self, pipeline: Path) -> Outcome:
        """``smt run PIPELINE --metrics-json``; the figures come back in ``records``."""
        metrics = self.root / "metrics.json"
        outcome = self.smt("run", str(pipeline), "--metrics-json", str(metrics))
        if outcome.code == 0:
            outcome.records = json.loads(metrics.read_text())["records"]
        return outcome

    def snapshot(self) -> dict[str, str]:
        """A digest of every input file and pipeline file."""
        files = [p for p in (self.root / "in").rglob("*") if p.is_file()] + list(self.root.glob("*.properties"))
        return {str(p.relative_to(self.root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}

    def assert_input_unchanged(self) -> None:
        assert self._before is not None, "nothing ran"
        assert self.snapshot() == self._before, "the run changed its input or pipeline file"

    def lines(self, folder: str) -> list[bytes]:
        """The lines of the part files a sink wrote (none when the folder does not exist)."""
        directory = self.root / folder
        if not directory.exists():
            return []
        return [line for part in sorted(directory.glob("part-*")) for line in part.read_bytes().splitlines()]

    def dead_letters(self, folder: str = "dlq") -> list[dict]:
        return [json.loads(line) for line in self.lines(folder)]


def assert_accounted(outcome: Outcome, written_lines: int, dead_letters: int) -> None:
    """read = written + filtered + dead-lettered, and the files hold what the counters say."""
    assert outcome.code == 0, outcome.err
    r = outcome.records
    assert r["read"] == r["written"] + r["filtered"] + r["dead_lettered"], r
    assert r["failed"] == r["dead_lettered"], r
    assert (r["output_rows"], r["dead_lettered"]) == (written_lines, dead_letters), r


def context_header(dead_letter: dict, name: str) -> str:
    return next(h["value"] for h in dead_letter["headers"] if h["key"] == f"__connect.errors.{name}")


def within(seconds: float, call: Callable[[], int]) -> int:
    """``call()``, failing the test if it has not returned after ``seconds``."""
    result: list = []

    def target() -> None:
        try:
            result.append(("ok", call()))
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            result.append(("raised", exc))

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"did not end within {seconds} s")
    kind, value = result[0]
    if kind == "raised":
        raise value
    return value


def smt_process(args: list[str], cwd: Path, root: str, **popen) -> subprocess.Popen:
    """``python -m smt ARGS`` in a process (and session) of its own, for probes that kill or exhaust it."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
        "PYSPARK_PYTHON": sys.executable,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "smt", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **popen,
    )


@pytest.fixture
def probe(tmp_path, capsys) -> Probe:
    return Probe(tmp_path, capsys)
