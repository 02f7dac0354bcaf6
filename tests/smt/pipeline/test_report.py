"""Where the summary says records went, and its figures (no broker, no Spark: they come from the spec)."""

import io
import re

import pytest
from rich.console import Console

from smt.pipeline import PipelineSpec
from smt.pipeline.processor import BatchCounts
from smt.pipeline.report import failed_destination, locations, metrics, print_summary
from smt.pipeline.runner import PipelineResult

KAFKA = {
    "source": "kafka", "source.kafka.bootstrap.servers": "127.0.0.1:9092", "source.topics": "raw",
    "sink": "kafka", "sink.kafka.bootstrap.servers": "127.0.0.1:9092", "sink.topic": "clean",
    "value.converter": "json", "value.converter.schemas.enable": "false",
}  # fmt: skip


def test_a_kafka_sinks_topic_takes_every_record_unless_a_transform_may_route():
    masked = {**KAFKA, "transforms": "mask", "transforms.mask.type": "MaskField$Value", "transforms.mask.fields": "a"}
    assert locations(PipelineSpec.from_properties(masked))["sink"] == "kafka topic clean"

    routed = {**KAFKA, "transforms": "route", "transforms.route.type": "RegexRouter",
              "transforms.route.regex": "raw", "transforms.route.replacement": "audit"}  # fmt: skip
    assert locations(PipelineSpec.from_properties(routed))["sink"] == (
        "kafka topic clean (records a transform routed: their new topic)"
    )


# --- #34 item 4: the figures the summary shows are true, or said to be unknown ------------------


@pytest.fixture
def file_pipeline(tmp_path):
    (tmp_path / "in.txt").write_text("a\n", encoding="utf-8")
    return {"source": "file", "source.path": str(tmp_path / "in.txt"), "sink": "console"}


def summary(result, spec) -> str:
    out = io.StringIO()
    print_summary(result, spec, console=Console(file=out, width=220))
    return out.getvalue()


def test_the_table_sink_shows_the_write_mode_in_force(file_pipeline, tmp_path):
    table = {**file_pipeline, "sink": "table", "sink.format": "parquet", "sink.path": str(tmp_path / "t")}
    assert locations(PipelineSpec.from_properties(table))["sink"] == f"table {tmp_path / 't'} (parquet, append)"
    table["sink.write.mode"] = "overwrite"
    assert locations(PipelineSpec.from_properties(table))["sink"].endswith("(parquet, overwrite)")


def test_the_file_sink_shows_its_own_default(file_pipeline, tmp_path):
    files = {**file_pipeline, "sink": "file", "sink.path": str(tmp_path / "out")}
    assert locations(PipelineSpec.from_properties(files))["sink"] == f"file {tmp_path / 'out'} (text, errorifexists)"


@pytest.mark.parametrize(
    "errors, where",
    [
        ({}, "none: errors.tolerance=none stops the run at the first"),
        ({"errors.tolerance": "all"}, "skipped: no dead-letter queue (errors.log.enable=true logs them)"),
        ({"errors.tolerance": "all", "errors.log.enable": "true"},
         "skipped: no dead-letter queue, and logged (errors.log.enable)"),
        ({"errors.tolerance": "all", "errors.deadletterqueue.path": "dlq"}, "set aside in the dead-letter queue"),
    ],
)  # fmt: skip
def test_the_failed_row_names_where_failed_records_went(file_pipeline, tmp_path, errors, where):
    if "errors.deadletterqueue.path" in errors:
        errors = {**errors, "errors.deadletterqueue.path": str(tmp_path / "dlq")}
    spec = PipelineSpec.from_properties({**file_pipeline, **errors})
    assert failed_destination(spec) == where
    shown = summary(PipelineResult(BatchCounts(read=2, written=1, failed=1, dead_lettered=1), 2.0), spec)
    assert re.search(r"│ failed +│ +1 │ " + re.escape(where), shown)


def test_counts_that_did_not_come_back_are_unknown_never_zero(file_pipeline):
    spec = PipelineSpec.from_properties({**file_pipeline, "transforms": "m", "transforms.m.type": "MaskField$Value",
                                         "transforms.m.fields": "a"})  # fmt: skip
    result = PipelineResult(BatchCounts(), 3.0, known="none")
    shown = summary(result, spec)
    assert re.search(r"│ read +│ unknown │ from file", shown) and re.search(r"│ written +│ unknown │ to console", shown)
    assert "The counts are unknown: Spark reported none for this run's write (the records were written)." in shown
    assert "records/s" not in shown and not re.search(r"│ +0 │", shown)
    figures = metrics(result, spec)
    assert figures["records"] == dict.fromkeys(["read", "written", "output_rows", "filtered", "failed",
                                                "dead_lettered"])  # fmt: skip
    assert figures["records_uncertain"] == list(figures["records"]) and figures["records_per_second"] is None


def test_per_transform_figures_that_did_not_come_back_are_unknown(file_pipeline):
    spec = PipelineSpec.from_properties({**file_pipeline, "transforms": "m", "transforms.m.type": "MaskField$Value",
                                         "transforms.m.fields": "a"})  # fmt: skip
    shown = summary(PipelineResult(BatchCounts(read=4, written=4, output_rows=4), 3.0, known="counts"), spec)
    assert re.search(r"│ read +│ +4 │", shown)
    assert "Per-transform figures are unknown: Spark reported none for this run's write." in shown
    assert metrics(PipelineResult(BatchCounts(), 3.0, known="counts"), spec)["transforms"] == {"m": None}


@pytest.mark.parametrize("seconds, rate", [(0.4, None), (0.99, None), (2.0, "2 records/s read")])
def test_a_rate_shows_only_for_a_run_of_a_second_or_more(file_pipeline, seconds, rate):
    shown = summary(PipelineResult(BatchCounts(read=4, written=4, output_rows=4), seconds),
                    PipelineSpec.from_properties(file_pipeline))  # fmt: skip
    assert f"{seconds:.2f} s" in shown
    assert (rate in shown) if rate else ("records/s" not in shown)
