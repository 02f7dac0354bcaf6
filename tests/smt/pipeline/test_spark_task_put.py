"""On real Spark: a record the text sink cannot write goes to the file dead-letter queue, the rest are written."""

import json

import pytest

from smt.pipeline import PipelineFailed, PipelineSpec, run_pipeline
from smt.testing import output_lines

pytestmark = pytest.mark.spark


def jsonl_to_text(tmp_path, **errors):
    source = tmp_path / "notes.jsonl"
    notes = [{"topic": "notes", "offset": i, "value": v} for i, v in enumerate(["one", "two\nlines", "three"])]
    source.write_text("".join(json.dumps(note) + "\n" for note in notes), encoding="utf-8")
    return PipelineSpec.from_properties({
        "source": "file", "source.path": str(source), "source.format": "jsonl",
        "sink": "file", "sink.path": str(tmp_path / "out"), "sink.format": "text",
        **{k.replace("__", "."): v for k, v in errors.items()},
    })  # fmt: skip


def test_a_value_with_a_line_break_is_dead_lettered_and_the_others_written(spark, tmp_path):
    spec = jsonl_to_text(
        tmp_path,
        errors__tolerance="all",
        errors__deadletterqueue__path=str(tmp_path / "dlq"),
        errors__deadletterqueue__context__headers__enable="true",
    )
    counts = run_pipeline(spec, spark=spark).counts
    assert sorted(output_lines(tmp_path / "out")) == ["one", "three"]
    [dead] = [json.loads(line) for line in output_lines(tmp_path / "dlq")]
    assert (dead["topic"], dead["offset"], dead["value"]) == ("notes", 1, "two\nlines")
    context = {h["key"]: h["value"] for h in dead["headers"]}
    assert context["__connect.errors.stage"] == "TASK_PUT"
    assert context["__connect.errors.class.name"] == "connectors.file.sink.FileSink"
    assert context["__connect.errors.exception.message"].startswith("the value has a line break at byte 3")
    assert (counts.read, counts.written, counts.failed, counts.dead_lettered) == (3, 2, 1, 1)
    assert counts.read == counts.written + counts.filtered + counts.dead_lettered


def test_with_tolerance_none_the_run_stops_naming_the_record(spark, tmp_path):
    with pytest.raises(
        PipelineFailed,
        match=r"TASK_PUT stage with connectors\.file\.sink\.FileSink on record "
        r"topic='notes' partition=None offset=1: SinkRecordError: the value "
        r"has a line break",
    ):
        run_pipeline(jsonl_to_text(tmp_path), spark=spark)
    assert not (tmp_path / "out").exists() or output_lines(tmp_path / "out") == []
