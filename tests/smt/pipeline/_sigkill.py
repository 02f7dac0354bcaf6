"""Start a streaming ``smt run`` in a process group of its own and SIGKILL it mid-stream."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable


def start(pipeline: Path, root: str, cwd: Path | str | None = None) -> subprocess.Popen:
    """``python -m smt run pipeline`` with this checkout importable, its output captured."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
           "PYSPARK_PYTHON": sys.executable}
    # A session of its own, so SIGKILL reaches the driver's JVM and Python workers too.
    return subprocess.Popen([sys.executable, "-m", "smt", "run", str(pipeline)], cwd=cwd or root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def kill_after(process: subprocess.Popen, done: Callable[[], int], batches: int, timeout: float = 300) -> int:
    """SIGKILL ``process`` (and its group) once ``done()`` counts ``batches``; returns the count then."""
    deadline = time.monotonic() + timeout
    while done() < batches:
        assert process.poll() is None, f"the first run ended before it could be killed: {process.communicate()}"
        assert time.monotonic() < deadline, "no micro-batch completed in time"
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(30)
    return done()
