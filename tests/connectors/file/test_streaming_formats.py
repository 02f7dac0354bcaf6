"""Every whole-record format also streams: Spark's file stream source picks up the files."""

import json
import os

import pytest

from connectors.file.formats import FORMATS
from smt.pipeline import PipelineSpec, run_pipeline
from smt.record import KAFKA_ROW_SCHEMA_DDL

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("name", ["jsonl", "parquet", "avro"])
def test_format_streams_whole_records(spark, tmp_path, name):
    rows = [
        (f"k{i}".encode(), f"v{i}".encode(), "orders", 3, 100 + i, None, 0, [{"key": "h", "value": b"\x00"}])
        for i in range(5)
    ]
    FORMATS[name].write(spark.createDataFrame(rows, KAFKA_ROW_SCHEMA_DDL), str(tmp_path / "in"), "errorifexists")
    spec = PipelineSpec.from_properties(
        {
            "mode": "streaming",
            "checkpoint.location": str(tmp_path / "checkpoint"),
            "streaming.trigger": "availableNow",
            "source": "file",
            "source.path": str(tmp_path / "in"),
            "source.format": name,
            "sink": "file",
            "sink.path": str(tmp_path / "out"),
            "sink.format": "jsonl",
        }
    )
    run_pipeline(spec, spark=spark)
    lines = []
    for file_name in os.listdir(tmp_path / "out"):
        if not file_name.startswith(("_", ".")):
            with open(tmp_path / "out" / file_name, encoding="utf-8") as handle:
                lines.extend(json.loads(line) for line in handle)
    assert sorted((r["key"], r["value"], r["topic"], r["partition"], r["offset"], r["headers"]) for r in lines) == [
        (f"k{i}", f"v{i}", "orders", 3, 100 + i, [{"key": "h", "value": "\u0000"}]) for i in range(5)
    ]
