"""Kill -9 a streaming `smt run` mid-stream, restart it: the file sink holds every record exactly once."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]

FILES, LINES_PER_FILE = 10, 30


def pipeline_file(tmp_path, header="via"):
    path = tmp_path / f"pipeline-{header}.properties"
    path.write_text(
        "name=recovery\n"
        "mode=streaming\n"
        "checkpoint.location=checkpoint\n"
        "streaming.trigger=availableNow\n"
        "spark.master=local[2]\n"
        "spark.ui.enabled=false\n"
        "spark.sql.shuffle.partitions=2\n"
        "source=file\nsource.path=in\nsource.format=text\nsource.max.files.per.trigger=1\n"
        "sink=file\nsink.path=out\nsink.format=jsonl\n"
        "value.converter=string\nheader.converter=string\n"
        "transforms=tag\ntransforms.tag.type=InsertHeader\n"
        f"transforms.tag.header={header}\ntransforms.tag.value.literal=smt\n",
        encoding="utf-8",
    )
    return path


def start(pipeline, root):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
           "PYSPARK_PYTHON": sys.executable}
    # A session of its own, so SIGKILL reaches the driver's JVM and Python workers too.
    return subprocess.Popen([sys.executable, "-m", "smt", "run", str(pipeline)], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def committed_batches(out):
    commits = out / "_smt_commits"
    return [n for n in os.listdir(commits) if not n.startswith(".")] if commits.exists() else []


def output_values(out):
    values = []
    for name in os.listdir(out):
        if not name.startswith(("_", ".")):
            with open(out / name, encoding="utf-8") as handle:
                for line in handle:
                    record = json.loads(line)
                    assert record["headers"] == [{"key": "via", "value": "smt"}]
                    values.append(record["value"])
    return sorted(values)


def test_sigkill_mid_stream_then_restart_loses_and_duplicates_nothing(tmp_path, pytestconfig):
    root = str(pytestconfig.rootpath)
    (tmp_path / "in").mkdir()
    expected = []
    for f in range(FILES):
        lines = [f"file{f:02d}-line{n:02d}" for n in range(LINES_PER_FILE)]
        (tmp_path / "in" / f"part{f:02d}.txt").write_text("".join(f"{line}\n" for line in lines))
        expected.extend(lines)
    pipeline = pipeline_file(tmp_path)

    first = start(pipeline, root)
    deadline = time.monotonic() + 300
    while len(committed_batches(tmp_path / "out")) < 2:
        assert first.poll() is None, f"the first run ended before it could be killed: {first.communicate()}"
        assert time.monotonic() < deadline, "no micro-batch committed in time"
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(30)
    killed_at = len(committed_batches(tmp_path / "out"))
    assert 2 <= killed_at < FILES, "the kill must land mid-stream"

    second = start(pipeline, root)
    stdout, stderr = second.communicate(timeout=300)
    assert second.returncode == 0, stderr[-3000:]
    assert output_values(tmp_path / "out") == sorted(expected)

    # The same checkpoint with another transform setting is refused, and nothing is written.
    third = start(pipeline_file(tmp_path, header="other"), root)
    _, stderr = third.communicate(timeout=300)
    assert third.returncode != 0
    assert "belongs to a different pipeline (transforms.tag.header changed 'via' → 'other')" in stderr
    assert output_values(tmp_path / "out") == sorted(expected)
