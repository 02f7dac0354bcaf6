"""A Delta table's live rows read from its log and Parquet files, without Spark: an independent reader."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq


def delta_live_rows(table: Path) -> list[dict]:
    """The rows of the data files the table's ``_delta_log`` holds now (refuses deletion vectors)."""
    live: dict[str, bool] = {}
    for log in sorted((table / "_delta_log").glob("*.json")):
        for line in log.read_text().splitlines():
            action = json.loads(line)
            if "add" in action:
                assert not action["add"].get("deletionVector"), "deletion vectors: read the table with Spark"
                live[action["add"]["path"]] = True
            if "remove" in action:
                live.pop(action["remove"]["path"], None)
    return [row for path in live for row in pq.read_table(table / path).to_pylist()]
