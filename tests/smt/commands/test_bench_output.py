"""``smt bench`` keeps Spark's output off the terminal, as ``smt run`` does (#34 item 9)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from smt.pipeline.jvm_output import child_output_to


def test_a_child_process_writes_to_the_log_and_this_one_to_the_terminal(tmp_path, capfd):
    log = tmp_path / "spark.log"
    with child_output_to(log):
        subprocess.run(["sh", "-c", "echo child-out; echo child-err >&2"], check=True)
        print("ours")
        print("ours-err", file=sys.stderr)
    print("after")
    captured = capfd.readouterr()
    assert captured.out.split() == ["ours", "after"] and captured.err.split() == ["ours-err"]
    assert log.read_text().split() == ["child-out", "child-err"]


@pytest.mark.spark
@pytest.mark.timeout(300)
def test_bench_prints_its_table_and_the_log_path_and_no_spark_output():
    done = subprocess.run([sys.executable, "-m", "smt", "bench", "builtins", "--scale", "0.01"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # before: "Using Spark's default log4j profile", WARN lines, ...
    assert "smt benchmarks (one run, same data)" in done.stdout
    log = Path(re.search(r"^Spark's log: (.+)$", done.stdout, re.M).group(1))
    assert "log4j" in log.read_text()
