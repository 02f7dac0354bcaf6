"""Two runs on one checkpoint: the second is refused before it writes anything; nothing is doubled or lost.

The first run holds ``checkpoint.location`` for its life; a ``kill -9`` releases it.
"""

import collections
import os
import signal
import time

import pytest

from smt.pipeline.checkpoint_lock import LOCK_FILE
from tests.reliability.conftest import RUN_BOUND_SECONDS, smt_process

pytestmark = [pytest.mark.spark, pytest.mark.slow]

STREAMING = (
    "mode=streaming\ncheckpoint.location=checkpoint\n"
    "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
    "source=file\nsource.path=in\nsource.format=text\nsource.max.files.per.trigger=1\n"
    "sink=file\nsink.path=out\nsink.format=text\nvalue.converter=string\n"
)


def output_lines(out):
    names = [n for n in os.listdir(out) if not n.startswith(("_", "."))] if out.exists() else []
    return [line for name in names for line in (out / name).read_text(encoding="utf-8").splitlines()]


def commits(out):
    return [marker.name for marker in (out / "_smt_commits").glob("*/*") if marker.name.isdigit()]


def test_a_second_run_on_a_checkpoint_in_use_is_refused_and_a_killed_run_leaves_no_lock(probe, spark, pytestconfig):
    expected = []
    for f in range(6):
        lines = [f"file{f}-line{n:02d}" for n in range(20)]
        probe.input(f"part{f}.txt", "".join(f"{line}\n" for line in lines))
        expected += lines
    # The first run goes on until it is killed (processingTime, no timeout).
    first_pipeline = probe.pipeline(STREAMING, name="first.properties")
    first = smt_process(["run", str(first_pipeline)], probe.root, str(pytestconfig.rootpath))
    deadline = time.monotonic() + RUN_BOUND_SECONDS
    while not commits(probe.root / "out"):
        assert first.poll() is None, f"the first run ended: {first.communicate()}"
        assert time.monotonic() < deadline, "no micro-batch finished in time"
        time.sleep(0.05)

    second = probe.smt("run", str(probe.pipeline(STREAMING + "streaming.trigger=availableNow\n")))
    assert first.poll() is None, "the first run must still hold the checkpoint"
    assert second.code == 1
    [line] = second.error_lines
    assert "checkpoint.location " in line and f"is in use by another run (pid {first.pid} on " in line, line

    os.killpg(first.pid, signal.SIGKILL)
    first.wait(30)
    assert (probe.root / "checkpoint" / LOCK_FILE).exists(), "the lock file stays; the kill released its lock"
    third = probe.run(probe.pipeline(STREAMING + "streaming.trigger=availableNow\n"))
    assert third.code == 0, third.err
    seen = collections.Counter(output_lines(probe.root / "out"))
    assert sorted(seen) == sorted(expected), "nothing lost"
    assert max(seen.values()) == 1, f"written twice: {[line for line, n in seen.items() if n > 1][:5]}"
