"""Pipelines on a real local Spark: text files in, chain, text files and dead letters out."""

import contextlib
import json

import pytest

from smt.errors import ConfigError
from smt.pipeline import PipelineFailed, PipelineSpec, run_pipeline
from smt.testing import output_lines
from tests.smt.sample_plugins import sample_plugins

pytestmark = pytest.mark.spark


@contextlib.contextmanager
def spark_setting(spark, key, value):
    previous = spark.conf.get(key, None)
    spark.conf.set(key, value)
    try:
        yield
    finally:
        if previous is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, previous)


def pipeline(tmp_path, lines, **extra):
    source = tmp_path / "orders.txt"
    source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    props = {
        "source": "file",
        "source.path": str(source),
        "source.format": "text",
        "sink": "file",
        "sink.path": str(tmp_path / "out"),
        "sink.format": "text",
        "value.converter": "string",
        "transforms": "split,suffix",
        "transforms.split.type": "Split",
        "transforms.suffix.type": "AppendSuffix",
        "transforms.suffix.suffix": "!",
    }
    props.update({k.replace("__", "."): v for k, v in extra.items()})
    return PipelineSpec.from_properties(props, plugins=sample_plugins())


def test_text_in_chain_text_out(spark, tmp_path):
    spec = pipeline(tmp_path, ["a|b", "c"])
    result = run_pipeline(spec, spark=spark)
    assert sorted(output_lines(tmp_path / "out")) == ["a!", "b!", "c!"]
    assert (result.counts.read, result.counts.written, result.counts.output_rows) == (2, 2, 3)


def test_failed_records_go_to_the_file_dead_letter_queue(spark, tmp_path):
    spec = pipeline(
        tmp_path,
        ["ok", "boom", "fine"],
        errors__tolerance="all",
        errors__deadletterqueue__path=str(tmp_path / "dlq"),
        errors__deadletterqueue__context__headers__enable="true",
    )
    result = run_pipeline(spec, spark=spark)
    assert sorted(output_lines(tmp_path / "out")) == ["fine!", "ok!"]
    dead = [json.loads(line) for line in output_lines(tmp_path / "dlq")]
    assert len(dead) == 1
    assert dead[0]["topic"] == "orders" and dead[0]["offset"] is not None
    headers = {h["key"] for h in dead[0]["headers"]}
    assert "__connect.errors.exception.message" in headers
    counts = result.counts
    assert (counts.read, counts.written, counts.failed, counts.dead_lettered) == (3, 2, 1, 1)
    assert counts.read == counts.written + counts.filtered + counts.failed


def test_tolerance_none_fails_the_job_and_writes_nothing(spark, tmp_path):
    spec = pipeline(tmp_path, ["ok", "boom"])
    with pytest.raises(
        PipelineFailed,
        match=r"TRANSFORMATION stage .*AppendSuffix \(alias 'suffix'\) on the record read from "
        r"line 2 of .*orders\.txt: DataError: cannot append to boom",
    ):
        run_pipeline(spec, spark=spark)
    out = tmp_path / "out"
    assert not out.exists() or output_lines(out) == []


def test_unreadable_source_path_is_named_before_spark_runs(tmp_path):
    with pytest.raises(ConfigError, match=r"source\.path: cannot read '.*missing\.txt': no such file or directory"):
        pipeline(tmp_path, ["x"], source__path=str(tmp_path / "missing.txt"))


def test_relative_paths_resolve_against_the_properties_file(tmp_path):
    spec_dir = tmp_path / "conf"
    spec_dir.mkdir()
    (spec_dir / "p.properties").write_text("source.path=data/in.txt\nsink.path=../out\n", encoding="utf-8")
    (spec_dir / "data").mkdir()
    (spec_dir / "data" / "in.txt").write_text("a line\n", encoding="utf-8")
    try:
        from smt.properties import load_properties  # noqa: F401
    except ImportError:
        pytest.fail("smt.properties is missing")
    spec = PipelineSpec.from_properties(spec_dir / "p.properties")
    assert spec.source.config["path"] == str(spec_dir / "data" / "in.txt")
    assert spec.sink.config["path"] == str(tmp_path / "out")


def test_bad_pipeline_lists_every_problem():
    with pytest.raises(ConfigError) as info:
        PipelineSpec.from_properties(
            {
                "source": "nope",
                "sink.format": "csv",
                "mode": "streaming",
                "errors.tolerance": "most",
                "value.converter": "missing",
            }
        )
    assert {p.key for p in info.value.problems} == {
        "errors.tolerance",
        "source",
        "sink.path",
        "sink.format",
        "value.converter",
        "checkpoint.location",
    }


def test_per_transform_metrics_and_progress_come_from_the_executors(spark, tmp_path):
    spec = pipeline(tmp_path, ["a|b|c", "boom", "d"], errors__tolerance="all")
    seen = []
    result = run_pipeline(
        spec, spark=spark, on_progress=lambda counts, s: seen.append(counts.read), progress_interval=0.01
    )
    split, suffix = result.stages["split"], result.stages["suffix"]
    assert (split.records_in, split.records_out, split.dropped, split.errors) == (3, 5, 0, 0)
    assert (suffix.records_in, suffix.records_out, suffix.dropped, suffix.errors) == (5, 4, 0, 1)
    assert seen and max(seen) <= 3


def test_metrics_json_holds_the_summary_figures(spark, tmp_path):
    from smt.pipeline.report import write_metrics_json

    spec = pipeline(tmp_path, ["a|b", "c"])
    result = run_pipeline(spec, spark=spark)
    write_metrics_json(result, spec, tmp_path / "m.json")
    figures = json.loads((tmp_path / "m.json").read_text())
    assert figures["records"]["read"] == 2 and figures["records"]["output_rows"] == 3
    assert figures["transforms"]["split"]["records_out"] == 3
    assert figures["pipeline"] == "smt-pipeline"


def test_spark_jars_from_connectors_and_user_are_joined(tmp_path):
    spec = PipelineSpec.from_properties(
        {
            "source": "kafka",
            "source.topics": "in",
            "source.kafka.bootstrap.servers": "127.0.0.1:1",
            "sink.path": str(tmp_path / "out"),
            "spark.jars": "/opt/extra.jar",
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": "dlq",
            "errors.deadletterqueue.kafka.bootstrap.servers": "127.0.0.1:1",
        }
    )
    jars = spec.spark_conf()["spark.jars"].split(",")
    assert "/opt/extra.jar" in jars
    assert any("spark-sql-kafka" in jar for jar in jars)
    assert len(jars) == len(set(jars))


def test_pruned_fields_still_give_the_right_records(spark, tmp_path):
    from smt.pipeline.fields import plan_fields

    (tmp_path / "in.txt").write_text('{"card": "4111", "n": 1}\n{"card": "5500", "n": 2}\n', encoding="utf-8")
    spec = PipelineSpec.from_properties(
        {
            "source.path": str(tmp_path / "in.txt"),
            "sink.path": str(tmp_path / "out"),
            "value.converter": "json",
            "value.converter.schemas.enable": "false",
            "errors.tolerance": "all",
            "transforms": "mask,route",
            "transforms.mask.type": "MaskField$Value",
            "transforms.mask.fields": "card",
            "transforms.route.type": "TimestampRouter",
        }
    )
    assert plan_fields(spec).inputs == ("value", "topic", "timestamp")
    result = run_pipeline(spec, spark=spark)
    assert sorted(output_lines(tmp_path / "out")) == ['{"card":"","n":1}', '{"card":"","n":2}']
    assert result.counts.written == 2


def test_reading_in_python_tasks_and_with_spark_give_the_same_run(spark, tmp_path):
    lines = [f"r{i}|s{i}" if i % 5 else "boom" for i in range(400)]
    runs = {}
    for reader in ("auto", "spark"):
        work = tmp_path / reader
        work.mkdir()
        # Tiny pieces: many read tasks, files cut mid-line.
        with spark_setting(spark, "spark.sql.files.maxPartitionBytes", "600"):
            spec = pipeline(
                work,
                lines,
                source__reader=reader,
                errors__tolerance="all",
                errors__deadletterqueue__path=str(work / "dlq"),
            )
            tasks = spec.source.read_tasks(spark)
            assert (tasks is None) == (reader == "spark") and (tasks is None or len(tasks) > 2)
            result = run_pipeline(spec, spark=spark)
        dead = sorted(json.loads(line)["value"] for line in output_lines(work / "dlq"))
        runs[reader] = (sorted(output_lines(work / "out")), dead, result.counts, result.stages["suffix"].errors)
    assert runs["auto"] == runs["spark"]
    out, dead, counts, errors = runs["auto"]
    assert len(out) == 2 * 320 and dead == ["boom"] * 80 and errors == 80
    assert (counts.read, counts.written, counts.dead_lettered) == (400, 320, 80)


def test_an_unlimited_arrow_batch_size_still_reads_in_python_tasks(spark, tmp_path):
    with spark_setting(spark, "spark.sql.execution.arrow.maxRecordsPerBatch", "0"):  # Spark's "no limit"
        result = run_pipeline(pipeline(tmp_path, ["a|b", "c"]), spark=spark)
    assert sorted(output_lines(tmp_path / "out")) == ["a!", "b!", "c!"] and result.counts.read == 2
