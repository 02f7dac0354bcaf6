"""source=table with mode=streaming on local Spark: a Parquet or ORC folder followed as files are added to it.

Each run is ``streaming.trigger=availableNow`` (it reads what is there and
stops), so the files added between runs are what the next run reads, with no
clock involved.  Delta and Iceberg streams: ``test_source_formats.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from connectors.table import TableSource
from connectors.table.source import TableReadError
from smt.pipeline import PipelineSpec, run_pipeline
from tests.connectors.table.test_source import splits


def written_records(folder) -> list[dict]:
    """The records a streaming file sink wrote (one file per micro-batch)."""
    return [json.loads(line) for f in sorted(folder.glob("*.json")) for line in f.read_text().splitlines()]


def add_orders(spark, table, ids: range, fmt: str) -> None:
    """One new file of orders ``ids`` in the folder ``table``."""
    orders = spark.range(ids.start, ids.stop).selectExpr("id AS order_id", "concat('c', id) AS customer")
    orders.coalesce(1).write.mode("append").format(fmt).save(str(table))


def follow(spark, table, out, checkpoint, fmt: str):
    spec = PipelineSpec.from_properties(
        {
            "source": "table",
            "source.path": str(table),
            "source.format": fmt,
            "source.key.columns": "order_id",
            "key.converter": "json",
            "key.converter.schemas.enable": "false",
            "value.converter": "json",
            "value.converter.schemas.enable": "false",
            "sink": "file",
            "sink.path": str(out),
            "sink.format": "jsonl",
            "mode": "streaming",
            "checkpoint.location": str(checkpoint),
            "streaming.trigger": "availableNow",
        }
    )
    return run_pipeline(spec, spark=spark)


@pytest.mark.spark
@pytest.mark.parametrize("fmt", ["parquet", "orc"])
def test_a_restart_from_the_checkpoint_reads_only_the_files_added_since(spark, tmp_path, fmt):
    table, out = tmp_path / "orders", tmp_path / "out"
    add_orders(spark, table, range(0, 3), fmt)
    first = follow(spark, table, out, tmp_path / "checkpoint", fmt)
    add_orders(spark, table, range(3, 5), fmt)
    second = follow(spark, table, out, tmp_path / "checkpoint", fmt)
    assert (first.counts.written, second.counts.written) == (3, 2)
    records = written_records(out)
    assert sorted(json.loads(r["value"])["order_id"] for r in records) == [0, 1, 2, 3, 4]
    assert {r["topic"] for r in records} == {"orders"}
    assert all(json.loads(r["key"]) == {"order_id": json.loads(r["value"])["order_id"]} for r in records)
    # Each file is one split: its rows are offsets 0.. of the partition the file's split is named by.
    coordinates = {json.loads(r["value"])["order_id"]: (r["partition"], r["offset"]) for r in records}
    by_split = {}
    for partition, offset in sorted(coordinates.values()):
        by_split.setdefault(partition, []).append(offset)
    assert sorted(by_split) == sorted(splits(spark, table, fmt))
    assert sorted(by_split.values()) == [[0, 1], [0, 1, 2]]

    # A new stream over the same table gives every row the coordinates it had.
    follow(spark, table, tmp_path / "again", tmp_path / "checkpoint-again", fmt)
    again = written_records(tmp_path / "again")
    assert {json.loads(r["value"])["order_id"]: (r["partition"], r["offset"]) for r in again} == coordinates


def test_the_documented_streaming_example_is_a_valid_pipeline(tmp_path):
    page = (Path(__file__).resolve().parents[3] / "docs" / "tables.md").read_text(encoding="utf-8")
    marker = "<!-- checked by tests/connectors/table/test_source_streaming.py -->"
    block = re.search(re.escape(marker) + r"\n```properties\n(.*?)```", page, re.S)
    assert block, f"docs/tables.md has no properties block after {marker}"
    (tmp_path / "follow.properties").write_text(block.group(1))
    spec = PipelineSpec.from_properties(tmp_path / "follow.properties")
    assert spec.streaming and isinstance(spec.source, TableSource)
    assert spec.source.options == {"startingVersion": "0", "skipChangeCommits": "true"}


@pytest.mark.spark
def test_an_empty_folder_cannot_be_followed_and_the_message_says_why(spark, tmp_path):
    (tmp_path / "orders").mkdir()
    with pytest.raises(
        TableReadError,
        match=r"source.path=.*orders \(format parquet\) cannot be read: .*write the first rows before following it",
    ):
        follow(spark, tmp_path / "orders", tmp_path / "out", tmp_path / "checkpoint", "parquet")
