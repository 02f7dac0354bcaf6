"""source=table with format=jdbc: a real PostgreSQL table read into records, run as a user runs it (`smt run`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.connectors.table.postgres import postgres  # noqa: F401 - the fixture

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_a_postgresql_table_reads_into_records_with_their_schema(tmp_path, postgres):  # noqa: F811
    postgres.query(
        "create table customers (id bigint primary key, name text, balance numeric(10,2), since date, "
        "seen timestamptz, vip boolean); "
        "insert into customers values (1, 'Ada', 12.50, '2024-05-01', '2024-05-01 12:00:00+00', true), "
        "(2, null, -0.99, null, null, false)"
    )
    (tmp_path / "pipeline.properties").write_text(
        "source=table\nsource.format=jdbc\nsource.table=customers\nsource.key.columns=id\n"
        f"source.option.url={postgres.jdbc_url}\nsource.option.user=smt\nsource.option.driver=org.postgresql.Driver\n"
        "key.converter=json\nkey.converter.schemas.enable=false\nvalue.converter=json\n"
        "transforms=drop\ntransforms.drop.type=ReplaceField$Value\ntransforms.drop.exclude=vip\n"
        "sink=file\nsink.path=out\nsink.format=jsonl\n"
        "spark.master=local[1]\nspark.ui.enabled=false\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "smt", "run", "-q", "pipeline.properties"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for f in (tmp_path / "out").glob("part-*") for line in f.read_text().splitlines()]
    by_key = {json.loads(r["key"])["id"]: json.loads(r["value"]) for r in records}
    assert {r["topic"] for r in records} == {"customers"}
    first = by_key[1]
    # Spark reads every JDBC column as nullable, the primary key too: every field is optional.
    assert [(f["field"], f["type"], f["optional"], f.get("name")) for f in first["schema"]["fields"]] == [
        ("id", "int64", True, None),
        ("name", "string", True, None),
        ("balance", "bytes", True, "org.apache.kafka.connect.data.Decimal"),
        ("since", "int32", True, "org.apache.kafka.connect.data.Date"),
        ("seen", "int64", True, "org.apache.kafka.connect.data.Timestamp"),
    ]
    assert first["schema"]["fields"][2]["parameters"] == {"scale": "2", "connect.decimal.precision": "10"}
    assert first["payload"] == {"id": 1, "name": "Ada", "balance": "BOI=", "since": 19844, "seen": 1714564800000}
    assert by_key[2]["payload"] == {"id": 2, "name": None, "balance": "nQ==", "since": None, "seen": None}
