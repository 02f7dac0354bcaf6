"""Running test code as a Spark Connect client, in a process of its own.

PySpark puts a whole process in Connect mode once it makes a Connect session
(``pyspark.sql.functions`` then build Connect columns), and the test process
keeps a classic session.  So tests over Spark Connect run their client side
in a child process: ``smt`` itself, or a scenario function of a test module
(``python -m tests.connect_client MODULE FUNCTION URL WORK_DIR``) whose
JSON-able return value is handed back to the test.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
_RESULT_MARK = "connect-client-result: "


def run_smt(args: list[str], cwd: Path, url: str | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    """``python -m smt ARGS`` in ``cwd`` (with ``SPARK_REMOTE=url`` when given); asserts it succeeded."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if url:
        env["SPARK_REMOTE"] = url
    run = subprocess.run(
        [sys.executable, "-m", "smt", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert run.returncode == 0, run.stderr[-4000:]
    return run


def run_scenario(module: str, function: str, url: str, work_dir: Path, timeout: int = 600) -> Any:
    """``module.function(spark, work_dir)`` in a Connect client process; returns what it returned."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "tests.connect_client", module, function, url, str(work_dir)],
        cwd=work_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    line = next(line for line in reversed(run.stdout.splitlines()) if line.startswith(_RESULT_MARK))
    return json.loads(line[len(_RESULT_MARK) :])


def _main(module: str, function: str, url: str, work_dir: str) -> None:
    from smt.sessions import connect_session

    spark = connect_session(url)
    result = getattr(importlib.import_module(module), function)(spark, Path(work_dir))
    print(_RESULT_MARK + json.dumps(result, default=str))


if __name__ == "__main__":
    _main(*sys.argv[1:5])
