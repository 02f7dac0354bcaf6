"""The CDC benchmark's events have Debezium's layout, and its two sides merge them into the same table."""

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from smt.benchmarks import cdc as bench

pytestmark = pytest.mark.benchmark

ROOT = Path(__file__).resolve().parents[3]


def read_events(folder: Path) -> list[tuple[int, dict | None]]:
    """Each line's key id and value (None: a tombstone), in the order written."""
    events = []
    for line in next(folder.glob("*.jsonl")).read_text().splitlines():
        record = json.loads(line)
        key = json.loads(record["key"])["payload"]["id"]
        events.append((key, None if record["value"] is None else json.loads(record["value"])))
    return events


def replayed_table(snapshot: Path, changes: Path) -> list[list]:
    """The table the unwrapped events leave (rewrite mode: a delete removes the row), replayed in Python."""
    table = {}
    for key, value in read_events(snapshot) + read_events(changes):
        if value is None:
            continue  # a tombstone: rewrite mode drops it, the delete before it removed the row
        payload = value["payload"]
        if payload["op"] == "d":
            del table[key]
        else:
            table[key] = [*payload["after"].values(), "false"]
    return sorted(table.values())


def test_events_are_debezium_change_events_with_every_kind_of_change(tmp_path):
    written = bench.write_events(str(tmp_path / "snapshot"), str(tmp_path / "changes"), 1000)
    changes = read_events(tmp_path / "changes")
    assert written == len(changes) >= 1000
    assert {v["payload"]["op"] for _, v in read_events(tmp_path / "snapshot")} == {"r"}
    ops = collections.Counter("tombstone" if v is None else v["payload"]["op"] for _, v in changes)
    assert set(ops) == {"c", "u", "d", "tombstone"} and ops["d"] == ops["tombstone"] > 50
    envelope = next(v for _, v in changes if v is not None)
    assert [f["field"] for f in envelope["schema"]["fields"]] == ["before", "after", "source", "op", "ts_ms"]
    # A delete is followed by its key's tombstone; each key's LSNs grow.
    for (key, value), (next_key, next_value) in zip(changes, changes[1:]):
        if value is not None and value["payload"]["op"] == "d":
            assert (next_key, next_value) == (key, None)
    lsns = [v["payload"]["source"]["lsn"] for _, v in changes if v is not None]
    assert lsns == sorted(lsns) and len(set(lsns)) == len(lsns)


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_both_sides_merge_the_changes_into_the_table_a_replay_gives(tmp_path):
    """One warm-up and one timed round of each side on 1,000 events, into Delta and into PostgreSQL (about
    two minutes); each final table is the one a replay of the events in Python gives, and an unmerged table
    is caught as a difference."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "smt" / "benchmarks" / "cdc_run.py"), str(tmp_path), "1000"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    expected = replayed_table(tmp_path / "snapshot", tmp_path / "changes")
    assert [result["name"] for result in results] == [
        "cdc: Debezium JSON → unwrap → delta upsert",
        "cdc: Debezium JSON → unwrap → postgresql upsert",
    ]
    for result in results:
        assert result["records"] == [len(read_events(tmp_path / "changes"))] * 2
        assert result["rows"] == expected and len(expected) > 500
        assert result["unmerged"].startswith("cdc benchmark: the two jobs differ: rows only in ours [Row(id=")
