"""Bad input files: a clear error naming the file, a non-zero exit from `smt run`, no output committed."""

import io
import os
import re

import fastavro
import pytest

from smt.cli import main

pytestmark = pytest.mark.spark


def pipeline(tmp_path, source_format, sink_format="jsonl"):
    path = tmp_path / "p.properties"
    path.write_text(
        f"source=file\nsource.path=in\nsource.format={source_format}\n"
        f"sink=file\nsink.path=out\nsink.format={sink_format}\n",
        encoding="utf-8",
    )
    return str(path)


def run(spark, tmp_path, capsys, source_format, files):
    (tmp_path / "in").mkdir()
    for name, content in files.items():
        (tmp_path / "in" / name).write_bytes(content)
    code = main(["run", pipeline(tmp_path, source_format)])
    out = tmp_path / "out"
    committed = [n for n in os.listdir(out) if not n.startswith(("_", "."))] if out.exists() else []
    return code, capsys.readouterr().err, committed


def avro_bytes(schema, records):
    buffer = io.BytesIO()
    fastavro.writer(buffer, fastavro.parse_schema(schema), records)
    return buffer.getvalue()


GOOD_AVRO = avro_bytes(
    {"type": "record", "name": "R", "fields": [{"name": "value", "type": "bytes"}]},
    [{"value": b"x" * 100} for _ in range(50)],
)


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("bad.avro", b"definitely not avro", r"corrupt Avro file '.*bad\.avro'"),
        ("cut.avro", GOOD_AVRO[: len(GOOD_AVRO) - 40], r"corrupt Avro file '.*cut\.avro'"),
        (
            "other.avro",
            avro_bytes({"type": "record", "name": "R", "fields": [{"name": "id", "type": "int"}]}, [{"id": 1}]),
            r"Avro file '.*other\.avro' is not in Kafka row layout: its records have no 'value' field \(fields: id\)",
        ),
    ],
)
def test_bad_avro_files_are_named(spark, tmp_path, capsys, name, content, message):
    code, err, committed = run(spark, tmp_path, capsys, "avro", {"good.avro": GOOD_AVRO, name: content})
    assert code != 0

    assert re.search(r"source\.path: " + message, err), err
    assert committed == []


def test_a_corrupt_parquet_file_is_named_before_anything_runs(spark, tmp_path, capsys):
    code, err, committed = run(spark, tmp_path, capsys, "parquet", {"bad.parquet": b"not parquet" * 20})
    assert code != 0
    assert "source.path: cannot read Parquet files at" in err and "bad.parquet" in err, err
    assert committed == [] and not (tmp_path / "out").exists()


def test_parquet_without_a_value_column_is_refused(spark, tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "in").mkdir()
    pq.write_table(pa.table({"id": [1, 2]}), tmp_path / "in" / "ids.parquet")
    code = main(["run", pipeline(tmp_path, "parquet")])
    err = capsys.readouterr().err
    assert code != 0
    assert "are not in Kafka row layout: no 'value' column (columns: id)" in err, err


def test_a_malformed_jsonl_line_fails_the_run_at_task_poll(spark, tmp_path, capsys):
    code, err, committed = run(spark, tmp_path, capsys, "jsonl", {"a.jsonl": b'{"value": "ok"}\n{"value": "cut\n'})
    assert code != 0
    assert re.search(
        r"error: Error in TASK_POLL stage with connectors\.file\.source\.FileSource "
        r"on record .*SourceRecordError: malformed jsonl: line 2 of .*a\.jsonl: ",
        err,
    ), err
    assert committed == []


def test_a_malformed_jsonl_line_goes_to_the_dead_letter_queue_as_read(spark, tmp_path):
    import json

    from smt.pipeline import PipelineSpec, run_pipeline

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.jsonl").write_bytes(b'{"value": "ok"}\n{"value": "cut\n{"value": "fine"}\n')
    spec = PipelineSpec.from_properties(
        {
            "source.path": str(tmp_path / "in"),
            "source.format": "jsonl",
            "sink.path": str(tmp_path / "out"),
            "sink.format": "text",
            "errors.tolerance": "all",
            "errors.deadletterqueue.path": str(tmp_path / "dlq"),
            "errors.deadletterqueue.context.headers.enable": "true",
        }
    )
    result = run_pipeline(spec, spark=spark)
    written = sorted(line for f in (tmp_path / "out").glob("part-*") for line in f.read_text().splitlines())
    assert written == ["fine", "ok"]
    dead = [json.loads(line) for f in (tmp_path / "dlq").glob("part-*") for line in f.read_text().splitlines()]
    assert [d["value"] for d in dead] == ['{"value": "cut']
    headers = {h["key"]: h["value"] for h in dead[0]["headers"]}
    assert headers["__connect.errors.stage"] == "TASK_POLL"
    assert headers["__connect.errors.exception.message"].startswith(
        f"malformed jsonl: line 2 of {tmp_path / 'in' / 'a.jsonl'}: "
    )
    assert (result.counts.read, result.counts.written, result.counts.dead_lettered) == (3, 2, 1)


def test_an_unreadable_path_is_named(spark, tmp_path, capsys):
    code = main(["run", pipeline(tmp_path, "text")])
    err = capsys.readouterr().err
    assert code != 0
    assert f"source.path: cannot read '{tmp_path / 'in'}': no such file or directory" in err
