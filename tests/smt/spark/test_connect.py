"""Over Spark Connect: smt.spark.transform on a Connect DataFrame, and `smt run` with a remote session.

The server is a separate process (the `spark_connect_server` fixture); the
client reaches it only through Spark Connect, so the code, the jars and the
counts must travel as they do to a remote cluster: code and jars as session
artifacts, Wasm bytes inside the job, counts in observed metrics.
"""

from __future__ import annotations

import json
import os

import pytest

from smt.testing import output_lines
from tests.connect_client import run_scenario, run_smt
from tests.host_functions.wat_guests import FILTER_FAN_OUT, TO_UPPER

pytestmark = [pytest.mark.spark, pytest.mark.slow]

CHAIN = (
    "value.converter=json\nvalue.converter.schemas.enable=false\nheader.converter=string\n"
    "transforms=mask,upper,tag\n"
    "transforms.mask.type=org.apache.kafka.connect.transforms.MaskField$Value\ntransforms.mask.fields=email\n"
    "transforms.upper.type=wasm\ntransforms.upper.module.path=to_upper.wat\ntransforms.upper.function.name=to_upper\n"
    "transforms.upper.value.converter=json\ntransforms.upper.value.converter.schemas.enable=false\n"
    "transforms.tag.type=InsertHeader\ntransforms.tag.header=via\ntransforms.tag.value.literal=connect\n"
    "errors.tolerance=all\n"
)

LINES = [
    json.dumps({"user": "ann", "email": "ann@example.com"}),
    "{broken",
    json.dumps({"user": "bob", "email": "b@x"}),
]


def micro_batch_lines(directory) -> list[str]:
    """The lines of a streaming file sink's committed files (``batch-<id>-part-*``)."""
    return [
        line
        for name in sorted(os.listdir(directory))
        if name.startswith("batch-")
        for line in (directory / name).read_text(encoding="utf-8").splitlines()
    ]


def write_pipeline(directory, extra: str):
    (directory / "to_upper.wat").write_text(TO_UPPER, encoding="utf-8")
    (directory / "pipeline.properties").write_text(
        CHAIN
        + "errors.deadletterqueue.path=dead-letters\nerrors.deadletterqueue.context.headers.enable=true\n"
        + extra,
        encoding="utf-8",
    )


def test_smt_run_over_spark_connect_with_dead_letters_and_metrics(spark_connect_server, tmp_path):
    (tmp_path / "in.txt").write_text("".join(f"{line}\n" for line in LINES), encoding="utf-8")
    write_pipeline(
        tmp_path,
        f"spark.remote={spark_connect_server.url}\n"
        "source=file\nsource.path=in.txt\nsource.format=text\nsource.topic=users\n"
        "sink=file\nsink.path=out\nsink.format=jsonl\n",
    )
    run_smt(["run", "pipeline.properties", "--metrics-json", "metrics.json"], tmp_path)

    records = [json.loads(line) for line in output_lines(tmp_path / "out")]
    assert sorted(records, key=lambda r: r["offset"]) == [
        {
            **record,
            "value": json.dumps({"USER": user, "EMAIL": ""}, separators=(",", ":")),
            "headers": [{"key": "via", "value": "connect"}],
        }
        for record, user in zip(sorted(records, key=lambda r: r["offset"]), ("ANN", "BOB"))
    ]
    assert [r["offset"] for r in sorted(records, key=lambda r: r["offset"])] == [0, 2]
    dead = [json.loads(line) for line in output_lines(tmp_path / "dead-letters")]
    assert [d["value"] for d in dead] == ["{broken"]
    assert {"key": "__connect.errors.stage", "value": "VALUE_CONVERTER"} in dead[0]["headers"]
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["records"] == {
        "read": 3,
        "written": 2,
        "output_rows": 2,
        "filtered": 0,
        "failed": 1,
        "dead_lettered": 1,
    }
    assert {alias: (m["records_in"], m["records_out"]) for alias, m in metrics["transforms"].items()} == {
        "mask": (2, 2),
        "upper": (2, 2),
        "tag": (2, 2),
    }


def test_a_streaming_pipeline_over_spark_connect_commits_and_counts_each_micro_batch(spark_connect_server, tmp_path):
    (tmp_path / "in").mkdir()
    for part, lines in enumerate((LINES[:2], LINES[2:])):
        (tmp_path / "in" / f"part{part}.txt").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    write_pipeline(
        tmp_path,
        "mode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
        "source=file\nsource.path=in\nsource.format=text\nsource.max.files.per.trigger=1\n"
        "sink=file\nsink.path=out\nsink.format=jsonl\n",
    )
    run_smt(["run", "pipeline.properties", "--metrics-json", "metrics.json"], tmp_path, url=spark_connect_server.url)

    values = sorted(json.loads(json.loads(line)["value"])["USER"] for line in micro_batch_lines(tmp_path / "out"))
    assert values == ["ANN", "BOB"]
    [query] = (tmp_path / "out" / "_smt_commits").iterdir()  # the query's own commit markers
    assert sorted(os.listdir(query)) == ["0", "1"]
    assert [json.loads(line)["value"] for line in micro_batch_lines(tmp_path / "dead-letters")] == ["{broken"]
    assert (tmp_path / "checkpoint" / "smt-pipeline.json").exists()
    assert json.loads((tmp_path / "metrics.json").read_text())["records"] == {
        "read": 3,
        "written": 2,
        "output_rows": 2,
        "filtered": 0,
        "failed": 1,
        "dead_lettered": 1,
    }


# --- smt.spark.transform on a Connect DataFrame (run in the client process) ------------------


def transform_scenario(spark, work_dir):
    from smt.spark import chain, transform

    (work_dir / "fan_out.wat").write_text(FILTER_FAN_OUT, encoding="utf-8")
    df = spark.createDataFrame([("a", "odd-a"), ("b", "b")], "id string, value string")
    fanned = transform(
        df,
        {
            "transforms": "fan",
            "transforms.fan.type": "wasm",
            "transforms.fan.module.path": str(work_dir / "fan_out.wat"),
            "transforms.fan.function.name": "filter_fan_out",
            "transforms.fan.config.suffix": "+",
        },
    )
    records = [(r.id, r.value.decode()) for r in fanned.records.collect()]
    masking = chain(
        {
            "transforms": "mask",
            "transforms.mask.type": "MaskField$Value",
            "transforms.mask.fields": "n",
            "value.converter": "json",
            "value.converter.schemas.enable": "false",
            "errors.tolerance": "all",
        }
    )
    orders = spark.createDataFrame([(1, '{"n": 5}'), (2, "{bad")], "id int, value string")
    masked = [(r.id, r.value.decode()) for r in orders.transform(masking).collect()]
    dead = [(r.id, r.value, r.error_stage) for r in masking.result.dead_letters.collect()]  # as they came in: str
    return {
        "records": records,
        "metrics": fanned.metrics(),
        "masked": masked,
        "dead": dead,
        "masking_metrics": masking.result.metrics()["records"],
    }


def test_transform_on_a_spark_connect_dataframe(spark_connect_server, tmp_path):
    got = run_scenario(__name__, "transform_scenario", spark_connect_server.url, tmp_path)
    # 'o' is odd: the record and two more, each with the input's id; 'b' is even: dropped
    assert got["records"] == [["a", "odd-a"], ["a", "+"], ["a", "+"]]
    assert got["metrics"]["records"] == {
        "read": 2,
        "written": 1,
        "output_rows": 3,
        "filtered": 1,
        "failed": 0,
        "dead_lettered": 0,
    }
    assert got["metrics"]["transforms"]["fan"]["records_out"] == 3
    assert got["masked"] == [[1, '{"n":0}']]
    assert got["dead"] == [[2, "{bad", "VALUE_CONVERTER"]]
    assert got["masking_metrics"] == {
        "read": 2,
        "written": 1,
        "output_rows": 1,
        "filtered": 0,
        "failed": 1,
        "dead_lettered": 1,
    }
