"""``pytest -m "not spark"`` is the Python-only lane: it starts no JVM.

The markers come from the fixtures that start one (see :data:`smt.testing.plugin.FIXTURE_MARKERS`).
This runs the lane over modules that mix Python-only tests with tests that run Java (an oracle,
Maven, a broker of their own, a Spark Connect server), with every JVM launcher replaced by a shim
that logs who called it; a canary test that runs ``java`` unmarked proves the shims catch a call.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Modules where Python-only tests sit beside tests that start a JVM through a fixture or a hand-placed mark.
MIXED_MODULES = (
    "tests/smt/test_properties.py",
    "tests/smt/test_maven.py",
    "tests/smt/config_providers/test_kafka_oracle.py",
    "tests/smt/local/test_spark_connect.py",
    "tests/oracle/test_mutants.py",
    "tests/connectors/kafka/test_exactly_once.py",
)
#: What starts a JVM: java itself, and the JDK's and Maven's launchers (Spark finds java through JAVA_HOME or PATH).
LAUNCHERS = ("java", "javac", "keytool", "mvn")
CANARY = """
import subprocess

def test_runs_java_unmarked():
    subprocess.run(["java", "-version"], check=False)
"""


def _shim_jdk(home: Path, log: Path) -> None:
    """A JAVA_HOME whose launchers append their name, the test running and their arguments to ``log``, and fail."""
    (home / "bin").mkdir(parents=True)
    for name in LAUNCHERS:
        shim = home / "bin" / name
        shim.write_text(f'#!/bin/sh\necho "{name} [$PYTEST_CURRENT_TEST] $*" >> "{log}"\nexit 1\n')
        shim.chmod(0o755)


def test_the_python_only_lane_starts_no_jvm(tmp_path):
    home, log = tmp_path / "jdk", tmp_path / "launched.log"
    _shim_jdk(home, log)
    (tmp_path / "test_canary.py").write_text(CANARY)
    env = {**os.environ, "JAVA_HOME": str(home), "PATH": f"{home / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    command = [sys.executable, "-m", "pytest", "-m", "not spark", "-p", "no:cacheprovider", "-q",
               *MIXED_MODULES, str(tmp_path / "test_canary.py")]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)

    launched = log.read_text().splitlines() if log.exists() else []
    canary = [line for line in launched if "test_runs_java_unmarked" in line]
    assert canary, f"the shims caught no call from the canary: they prove nothing\n{done.stdout[-2000:]}"
    others = [line for line in launched if line not in canary]
    assert not others, (
        '-m "not spark" started a JVM (launcher [test] arguments below): give the test the fixture that starts '
        "it, or the marker (see smt/testing/plugin.py FIXTURE_MARKERS)\n" + "\n".join(others)
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and "deselected" in done.stdout, done.stdout[-1000:]
