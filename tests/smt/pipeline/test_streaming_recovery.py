"""Kill -9 a streaming `smt run` mid-stream, restart it: the file sink holds every record exactly once."""

import json
import os

import pytest

from tests.smt.pipeline._sigkill import kill_after, start

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

    killed_at = kill_after(start(pipeline, root), lambda: len(committed_batches(tmp_path / "out")), 2)
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
