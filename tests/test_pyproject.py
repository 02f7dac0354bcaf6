"""The package metadata in the forms current setuptools takes without warnings, and a quiet set-up."""

import re
import subprocess
import tomllib
from pathlib import Path

from connectors.table.jars import FORMAT_JARS

ROOT = Path(__file__).resolve().parents[1]


def test_license_is_an_spdx_expression_with_a_setuptools_that_reads_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    # A table (`{ text = ... }`) is deprecated: setuptools warns about it on every install.
    assert project["project"]["license"] == "Apache-2.0"
    assert "setuptools>=77" in project["build-system"]["requires"]  # the first to read PEP 639 licenses


def test_setup_shows_pips_output_only_when_pip_fails(tmp_path):
    # The script's own helper, run on a command that fails and one that succeeds.
    script = (ROOT / "scripts" / "setup-venv.sh").read_text()
    helper = script[script.index("quietly() {") : script.index("\n}\n") + 3]
    log = tmp_path / "log"
    ok = subprocess.run(["bash", "-c", f"log={log}\n{helper}quietly echo chatty"], capture_output=True, text=True)
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "", "")
    failed = subprocess.run(["bash", "-c", f'log={log}\n{helper}quietly bash -c "echo why; exit 3"'],
                            capture_output=True, text=True)  # fmt: skip
    assert failed.returncode == 1
    assert failed.stderr.splitlines() == ["why", "error: failed: bash -c echo why; exit 3"]


def _requirement(requirements, name):
    return next(r for r in requirements if re.match(rf"{re.escape(name)}(\[|[<>=!~ ]|$)", r))


def test_the_default_install_is_a_pyspark_every_documented_format_runs_on():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for requirements in (project["dependencies"], extras["connect"], extras["test"], extras["iceberg"]):
        assert _requirement(requirements, "pyspark").endswith("<4.2"), requirements
    # Each extra pins the release connectors/table/jars.py fetches for that Spark line.
    assert FORMAT_JARS["delta"].releases["4.1"][2] == "4.3.1"
    assert "delta-spark==4.3.1" in extras["delta"]
    assert FORMAT_JARS["iceberg"].releases["4.1"][1].startswith("iceberg-spark-runtime-4.1_")
    assert "delta-spark==4.3.1" in extras["test"]  # the suite runs Delta on what [delta] installs
