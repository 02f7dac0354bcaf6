"""sink.format=jdbc into a real PostgreSQL server, run as a user runs it (`smt run`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.connectors.table.postgres import postgres  # noqa: F401 - the fixture

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_records_go_into_a_postgresql_table_with_typed_columns(tmp_path, postgres, pytestconfig):  # noqa: F811
    (tmp_path / "orders.jsonl").write_text(
        '{"id": 1, "amount": 12.5, "placed": "2024-05-01T12:00:00Z", "name": "Ada"}\n'
        '{"id": 2, "amount": 0.99, "placed": 1714564860000, "name": null}\n'
        '{"id": 3, "amount": "lots"}\n'
    )
    (tmp_path / "pipeline.properties").write_text(
        "source=file\nsource.path=orders.jsonl\nsource.format=text\n"
        "value.converter=json\nvalue.converter.schemas.enable=false\n"
        "errors.tolerance=all\nerrors.deadletterqueue.path=dead\n"
        "sink=table\nsink.format=jdbc\nsink.table=orders\n"
        # No sink.option.driver: the keys docs/tables.md lists; the sink names the driver of the URL's database.
        f"sink.option.url={postgres.jdbc_url}\nsink.option.user=smt\n"
        "sink.value.schema=id BIGINT NOT NULL, amount DECIMAL(10,2), placed TIMESTAMP, name STRING\n"
        "spark.master=local[2]\nspark.ui.enabled=false\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "smt", "run", "-q", "pipeline.properties"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert postgres.query(
        "select column_name, data_type from information_schema.columns where table_name = 'orders' order by ordinal_position"
    ) == [["id", "bigint"], ["amount", "numeric"], ["placed", "timestamp with time zone"], ["name", "text"]]
    assert postgres.query("select id, amount, placed, coalesce(name, '-') from orders order by id") == [
        ["1", "12.50", "2024-05-01 12:00:00+00", "Ada"],
        ["2", "0.99", "2024-05-01 12:01:00+00", "-"],
    ]
    dead = [json.loads(line) for f in (tmp_path / "dead").glob("part-*") for line in f.read_text().splitlines()]
    assert [d["value"] for d in dead] == ['{"id": 3, "amount": "lots"}']


@pytest.mark.parametrize(
    "options, driver",
    [
        ({"url": "jdbc:postgresql://127.0.0.1/db"}, "org.postgresql.Driver"),
        ({"url": "jdbc:mysql://127.0.0.1/db"}, "com.mysql.cj.jdbc.Driver"),
        ({"url": "jdbc:postgresql://h/db", "driver": "my.Own"}, "my.Own"),
        ({"url": "jdbc:unheard:x"}, None),
    ],
)
def test_the_driver_is_named_after_the_urls_database_unless_given(options, driver):
    from connectors.table.upsert_jdbc import with_jdbc_driver

    assert with_jdbc_driver(options).get("driver") == driver
