"""Delta and Iceberg tables read back as records, and an Iceberg table grows a column, run as a user runs them (`smt run`);
Delta and Iceberg tables followed as streams while rows are appended to them.

Where Maven Central has no release of the format for the installed Spark
(see :mod:`connectors.table.jars`), the test checks that ``source=table``
refuses it before Spark starts, naming why.  The default install (PySpark 4.1.x)
runs these on a PySpark both formats support.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from connectors.table.jars import UnsupportedSparkError, format_bundle, spark_line
from smt.errors import ConfigError
from smt.pipeline import PipelineSpec

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]

COMMON = "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"

CATALOG = (
    "spark.sql.catalog.local=org.apache.iceberg.spark.SparkCatalog\nspark.sql.catalog.local.type=hadoop\n"
    "spark.sql.catalog.local.warehouse=warehouse\n"
)

#: The keys that name each format's table, without the connector's prefix.
WHERE = {"delta": ("format=delta", "path=orders"), "iceberg": ("format=iceberg", "table=local.shop.orders")}


def envelope(order_id: int, note: str | None = None) -> str:
    fields = [{"field": "order_id", "type": "int64", "optional": True}]
    payload: dict = {"order_id": order_id}
    if note is not None:
        fields.append({"field": "note", "type": "string", "optional": True})
        payload["note"] = note
    return json.dumps({"schema": {"type": "struct", "optional": False, "fields": fields}, "payload": payload})


def run(folder, name: str, text: str) -> None:
    (folder / name).write_text(text + COMMON + CATALOG, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "smt", "run", "-q", name], cwd=folder, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]


def where(fmt: str, side: str) -> str:
    return "".join(f"{side}.{key}\n" for key in WHERE[fmt])


def into_table(fmt: str, source: str, evolve: bool) -> str:
    text = (
        f"source=file\nsource.path={source}\nsource.format=text\nvalue.converter=json\nsink=table\n{where(fmt, 'sink')}"
    )
    if fmt == "iceberg":
        text += "sink.table.auto.create=true\n"
    if evolve:
        text += "sink.schema.evolution=add_columns\n"
    return text


@pytest.mark.parametrize("fmt", ["delta", "iceberg"])
def test_a_table_reads_back_as_records_and_iceberg_grows_a_column(tmp_path, fmt):
    backfill = (
        f"source=table\n{where(fmt, 'source')}value.converter=json\nvalue.converter.schemas.enable=false\n"
        "sink=file\nsink.path=out\nsink.format=jsonl\n"
    )
    try:
        format_bundle(fmt)
    except UnsupportedSparkError:
        with pytest.raises(
            ConfigError, match=f"source.format: Maven Central has no {fmt} release for Spark {spark_line()} .*newest"
        ):
            PipelineSpec.from_properties({**_props(backfill), "spark.master": "local[1]"})
        return
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "first.txt").write_text(envelope(1) + "\n" + envelope(2) + "\n")
    (tmp_path / "in" / "second.txt").write_text(envelope(3, "gift") + "\n")
    if fmt == "iceberg":  # the new column: ALTER TABLE before the second write
        run(tmp_path, "first.properties", into_table(fmt, "in/first.txt", evolve=False))
        run(tmp_path, "second.properties", into_table(fmt, "in/second.txt", evolve=True))
    else:  # Delta's mergeSchema is the sink's own test; one run (the records' schemas united) saves a JVM
        run(tmp_path, "both.properties", into_table(fmt, "in", evolve=False))
    run(tmp_path, "backfill.properties", backfill)
    records = [json.loads(line) for f in (tmp_path / "out").glob("part-*") for line in f.read_text().splitlines()]
    assert sorted((json.loads(r["value"]) for r in records), key=lambda v: v["order_id"]) == [
        {"order_id": 1, "note": None},
        {"order_id": 2, "note": None},
        {"order_id": 3, "note": "gift"},
    ]
    assert {r["topic"] for r in records} == {"orders"}


def _props(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if line)


#: Each format's table as SQL names it (in the test's folder) and how it is created.
STREAMED = {
    "delta": ("delta.`{folder}/orders`", "USING delta"),
    "iceberg": ("local.shop.orders", "USING iceberg"),
}


@pytest.mark.parametrize("fmt", ["delta", "iceberg"])
def test_a_delta_or_iceberg_stream_reads_only_the_rows_appended_since_the_last_run(tmp_path, fmt):
    follow = (
        f"source=table\n{where(fmt, 'source')}source.key.columns=order_id\nkey.converter=json\n"
        "key.converter.schemas.enable=false\nvalue.converter=json\nvalue.converter.schemas.enable=false\n"
        "sink=file\nsink.path={out}\nsink.format=jsonl\n"
        "mode=streaming\ncheckpoint.location={checkpoint}\nstreaming.trigger=availableNow\n"
    )
    (tmp_path / "follow.properties").write_text(follow.format(out="out", checkpoint="checkpoint") + COMMON + CATALOG)
    try:
        format_bundle(fmt)
    except UnsupportedSparkError:
        with pytest.raises(ConfigError, match=f"source.format: Maven Central has no {fmt} release for Spark"):
            PipelineSpec.from_properties(
                {**_props(follow.format(out="out", checkpoint="cp")), "spark.master": "local[1]"}
            )
        return
    # Delta's versions: 0 the table, 1 and 2 the two inserts; a stream from version 2 reads the second only.
    (tmp_path / "from2.properties").write_text(
        follow.format(out="from2", checkpoint="checkpoint2") + "source.option.startingVersion=2\n" + COMMON + CATALOG
    )
    table, using = STREAMED[fmt]
    table = table.format(folder=tmp_path)
    steps = [
        f"CREATE TABLE {table} (order_id BIGINT, note STRING) {using}",
        f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b')",
        "run:follow.properties",
        f"INSERT INTO {table} VALUES (3, 'c')",
        "run:follow.properties",
        *(["run:from2.properties"] if fmt == "delta" else []),
        f"SELECT DISTINCT crc32(concat(input_file_name(), '@', input_file_block_start())) & 2147483647 FROM {table}",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "tests.connectors.table.follow_table", *steps],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    splits = {row[0] for row in map(json.loads, done.stdout.splitlines())}
    records = written(tmp_path / "out")
    assert sorted(((json.loads(r["key"]), json.loads(r["value"])) for r in records), key=str) == [
        ({"order_id": i}, {"order_id": i, "note": note}) for i, note in ((1, "a"), (2, "b"), (3, "c"))
    ]
    # Where each came from: the split of the file each insert wrote, named as the records module says.
    assert {r["partition"] for r in records} == splits
    offsets: dict[int, list[int]] = {}
    for record in records:
        offsets.setdefault(record["partition"], []).append(record["offset"])
    assert all(sorted(each) == list(range(len(each))) for each in offsets.values())
    if fmt == "delta":
        assert [json.loads(r["value"])["order_id"] for r in written(tmp_path / "from2")] == [3]


def written(folder) -> list[dict]:
    """The records a streaming file sink wrote."""
    return [json.loads(line) for f in sorted(folder.glob("*.json")) for line in f.read_text().splitlines()]
