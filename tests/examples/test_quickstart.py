"""The README's quickstart pipeline, run on local Spark against a copy of the example folder."""

import json
import shutil
from pathlib import Path

import pytest

from smt.pipeline import PipelineSpec, run_pipeline

pytestmark = pytest.mark.spark

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "quickstart"


def test_quickstart_masks_drops_stamps_and_dead_letters_the_bad_line(spark, tmp_path):
    folder = tmp_path / "quickstart"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("out", "dead-letters"))
    spec = PipelineSpec.from_properties(folder / "quickstart.properties")
    result = run_pipeline(spec, spark=spark)

    lines = [line for f in sorted((folder / "out").glob("part-*")) for line in f.read_text().splitlines()]
    events = sorted((json.loads(line) for line in lines), key=lambda e: e["amount"])
    assert [e["amount"] for e in events] == [1.25, 12.5, 99.0, 250.75]
    assert all(e["card"] == "****" and "secret" not in e and e["pipeline"] == "quickstart" for e in events)
    dead = [json.loads(line) for f in (folder / "dead-letters").glob("part-*") for line in f.read_text().splitlines()]
    assert len(dead) == 1
    headers = {h["key"] for h in dead[0]["headers"]}
    assert "__connect.errors.exception.message" in headers
    assert (result.counts.read, result.counts.written, result.counts.dead_lettered) == (5, 4, 1)
