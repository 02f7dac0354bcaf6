"""The documented examples (docs/pyspark.md's, the quickstart's), run as a user runs them: from a folder
outside the project, with a ``PATH`` that does not hold the virtualenv (it was never activated)."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "pyspark.md"
VENV_BIN = Path(sys.executable).parent


def page_block(marker: str) -> str:
    found = re.search(re.escape(marker) + r"\n```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert found, f"docs/pyspark.md has no python block after {marker}"
    return found.group(1)


def user_env() -> dict[str, str]:
    """A new shell's environment: Java and the system's tools on PATH, no virtualenv, no chosen workers."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYSPARK_PYTHON")}
    java = Path(shutil.which("java")).parent
    env["PATH"] = os.pathsep.join(dict.fromkeys([str(java), "/usr/local/bin", "/usr/bin", "/bin"]))
    return env


def test_the_path_without_the_venv_has_no_python_with_the_project():
    # The other tests prove something only if `python3` on this PATH cannot run the project.
    python3 = shutil.which("python3", path=user_env()["PATH"])
    if python3 is not None:
        done = subprocess.run([python3, "-c", "import smt"], capture_output=True, env=user_env())
        assert done.returncode != 0, f"{python3} imports smt: these tests would prove nothing"


def test_the_over_files_example_runs_with_the_venv_python_not_activated(tmp_path):
    (tmp_path / "app.py").write_text(page_block("<!-- tested by tests/examples/test_readme.py -->"))
    (tmp_path / "chain.properties").write_text(
        "value.converter=json\nvalue.converter.schemas.enable=false\n"
        "transforms=mask\ntransforms.mask.type=MaskField$Value\ntransforms.mask.fields=card\n"
        "errors.tolerance=all\n"
    )
    (tmp_path / "events").mkdir()
    (tmp_path / "events" / "day1.jsonl").write_text(
        '{"user": 1, "card": "4111"}\nnot json\n{"user": 2, "card": "5500"}\n'
    )

    done = subprocess.run([str(VENV_BIN / "python"), "app.py"], cwd=tmp_path, env=user_env(),
                          capture_output=True, text=True, timeout=600)  # fmt: skip

    assert done.returncode == 0, done.stderr[-3000:]
    # #34 item 9: a glob path made Spark log a 60-line FileNotFoundException looking for stream metadata.
    assert "Exception" not in done.stderr, done.stderr[-3000:]
    masked = pq.read_table(tmp_path / "masked").to_pylist()
    assert sorted(json.loads(row["value"])["user"] for row in masked) == [1, 2]
    assert all(json.loads(row["value"])["card"] == "" for row in masked)
    assert all(row["source_file"].endswith("day1.jsonl") for row in masked)
    failed = pq.read_table(tmp_path / "failed").to_pylist()
    # As it came in: the input's `value` was a string column.
    assert [row["value"] for row in failed] == ["not json"]
    assert "'read': 3" in done.stdout and "'dead_lettered': 1" in done.stdout


def test_smt_run_of_the_quickstart_works_without_the_venv_on_path(tmp_path):
    shutil.copytree(ROOT / "examples" / "quickstart", tmp_path / "quickstart",
                    ignore=shutil.ignore_patterns("out", "dead-letters"))  # fmt: skip

    done = subprocess.run([str(VENV_BIN / "smt"), "run", "quickstart/quickstart.properties"], cwd=tmp_path,
                          env=user_env(), capture_output=True, text=True, timeout=600)  # fmt: skip

    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for f in (tmp_path / "quickstart" / "out").glob("part-*") for line in f.read_text().splitlines()]
    assert len(lines) == 4
