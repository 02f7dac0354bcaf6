"""sink.write.mode=upsert: rows replaced and deleted by key, into a real PostgreSQL (batch and a
replayed micro-batch), refusals, and the records whose key cannot be told failing alone at TASK_PUT."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from connectors.table import TableSink
from connectors.table.jars import UnsupportedSparkError, format_bundle
from smt.errors import ConfigError
from smt.pipeline import PipelineSpec, run_pipeline
from smt.plugin import PluginContext
from tests.connectors.table.postgres import postgres  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parents[3]

SCHEMA = "id BIGINT NOT NULL, name STRING, score INT"


def customer(cid: int, name: str, score: int = 0) -> bytes:
    return json.dumps({"id": cid, "name": name, "score": score}).encode()


def key(cid) -> bytes:
    return json.dumps({"id": cid}).encode()


def upsert_pipeline(source_path: str, table: str, url: str, **keys) -> PipelineSpec:
    props = {
        "source": "file",
        "source.path": source_path,
        "source.format": "parquet",
        "key.converter": "json",
        "key.converter.schemas.enable": "false",
        "value.converter": "json",
        "value.converter.schemas.enable": "false",
        "sink": "table",
        "sink.format": "jdbc",
        "sink.table": table,
        "sink.option.url": url,
        "sink.option.user": "smt",
        "sink.option.driver": "org.postgresql.Driver",
        "sink.write.mode": "upsert",
        "sink.value.schema": SCHEMA,
        **{k.replace("__", "."): v for k, v in keys.items()},
    }
    return PipelineSpec.from_properties(props)


@pytest.mark.spark
@pytest.mark.parametrize(
    "placeholder",
    # On (the default), the rows of a key are also searched for the values a placeholder stands for.
    [{}, {"sink__unavailable__value__placeholder": ""}],
    ids=["placeholder rule", "no placeholder rule"],
)
def test_records_replace_and_tombstones_delete_rows_of_a_postgresql_table(
    spark,
    kafka_input,
    postgres,  # noqa: F811
    placeholder,
):
    postgres.query(
        "drop table if exists customers; create table customers (id bigint primary key, name text, score integer);"
        "insert into customers values (1, 'Ada', 1), (2, 'Bob', 2), (3, 'Cy', 3), (4, 'Di', 4)"
    )
    changes = [
        (1, customer(1, "Ada L.", 10)),  # replaces row 1
        (2, None),  # deletes row 2
        (3, None),  # deletes row 3 ...
        (3, customer(3, "Cy again", 33)),  # ... and re-inserts it: the last read wins
        (5, customer(5, "Eve", 5)),  # a new row
        (5, customer(5, "Eve B.", 55)),  # the last of two wins
        (6, customer(6, "Fay")),
        (6, None),  # inserted then deleted in one batch: no row
        (None, customer(7, "no key")),  # a key-less value: its key is its id field
        (8, None),  # deleting a row that is not there
    ]
    source = kafka_input([v for _, v in changes], keys=[key(k) if k else None for k, _ in changes])
    spec = upsert_pipeline(source, "customers", postgres.jdbc_url, sink__key__columns="id", **placeholder)
    result = run_pipeline(spec, spark=spark)
    assert (result.counts.written, result.counts.failed) == (10, 0)
    assert postgres.query("select id, name, score from customers order by id") == [
        ["1", "Ada L.", "10"],
        ["3", "Cy again", "33"],
        ["4", "Di", "4"],
        ["5", "Eve B.", "55"],
        ["7", "no key", "0"],
    ]
    assert postgres.query("select count(*) from pg_tables where tablename like 'customers_smt_%'") == [["0"]]


@pytest.mark.spark
def test_a_replayed_micro_batch_leaves_the_table_as_once_and_the_table_is_created_with_its_key(
    spark,
    kafka_input,
    postgres,  # noqa: F811
):
    def row(cid: int, name: str, score: int = 0) -> bytes:
        return envelope(VALUE_FIELDS, {"id": cid, "name": name, "score": score}).encode()

    batches = [
        ([row(1, "Ada"), row(2, "Bob"), None], [1, 2, 3]),
        ([row(2, "Bob B.", 7), None, row(4, "Di")], [2, 1, 4]),
        ([None, None], [4, 9]),  # only deletes: the key columns' types are the table's
    ]
    spec = upsert_pipeline(
        kafka_input([row(1, "Ada")]),
        "accounts",
        postgres.jdbc_url,
        value__converter__schemas__enable="true",
        sink__value__schema="",
    )

    def as_handed(values: list) -> list:  # the records as the pipeline hands them over: values encoded by the sink
        topics = ["accounts"] * len(values)
        schemas, decoded = spec.value_converter.to_connect_batch(topics, values, pytest.fail)
        return spec.sink.encode_values(topics, schemas, decoded).to_pylist()

    frames = [
        spark.read.parquet(kafka_input(as_handed(values), keys=[key(k) for k in keys])) for values, keys in batches
    ]
    for batch_id in (0, 1, 1, 2):  # batch 1 replayed after a crash
        spec.sink.write(frames[batch_id], batch_id)
        if batch_id == 1:
            assert postgres.query("select id, name, score from accounts order by id") == [
                ["2", "Bob B.", "7"],
                ["4", "Di", "0"],
            ]
    assert postgres.query("select id, name, score from accounts order by id") == [["2", "Bob B.", "7"]]
    assert postgres.query(
        "select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey) "
        "where i.indrelid = 'accounts'::regclass and i.indisprimary"
    ) == [["id"]]


@pytest.mark.spark
def test_records_whose_key_cannot_be_told_go_to_the_dead_letter_queue(spark, tmp_path, kafka_input, postgres):  # noqa: F811
    values = [customer(1, "Ada"), None, customer(5, "no key"), customer(2, "Bob")]
    keys = [key(1), None, None, b'"plain"']
    source = kafka_input(values, keys=keys)
    spec = upsert_pipeline(
        source,
        "members",
        postgres.jdbc_url,
        errors__tolerance="all",
        errors__deadletterqueue__path=str(tmp_path / "dlq"),
        errors__deadletterqueue__context__headers__enable="true",
    )
    result = run_pipeline(spec, spark=spark)
    assert (result.counts.written, result.counts.dead_lettered) == (1, 3)
    assert postgres.query("select id, name from members") == [["1", "Ada"]]
    reasons = {}
    for letter in spark.read.json(str(tmp_path / "dlq")).collect():
        headers = {h["key"]: h["value"] for h in letter["headers"]}
        assert headers["__connect.errors.stage"] == "TASK_PUT"
        reasons[letter["offset"]] = headers["__connect.errors.exception.message"]
    assert reasons == {
        1: "sink.write.mode=upsert: a tombstone (null value) without a key names no row to delete",
        2: "sink.write.mode=upsert: the record has no key; the key columns are its key's fields unless "
        "sink.key.columns names them",
        3: "sink.write.mode=upsert: the record key is str 'plain', not a struct whose fields are the key "
        "columns; name the key columns with sink.key.columns",
    }


def value_row(cid: int, name: str, score: int | str = 0, **extra: str) -> bytes:
    """A JsonConverter envelope of a customer; ``score`` a string changes its type, ``extra`` adds fields."""
    fields = [f for f in VALUE_FIELDS if f["field"] != "score" or not isinstance(score, str)]
    if isinstance(score, str):
        fields.append({"field": "score", "type": "string", "optional": True})
    fields += [{"field": field, "type": "string", "optional": True} for field in extra]
    return envelope(fields, {"id": cid, "name": name, "score": score, **extra}).encode()


@pytest.mark.spark
def test_upserts_routed_by_topic_add_columns_and_refuse_a_misfit_alone(spark, tmp_path, kafka_input, postgres):  # noqa: F811
    def run(changes: list, **keys):
        values, topics, ids = zip(*changes)
        source = kafka_input(list(values), topic=list(topics), keys=[key(i) for i in ids])
        spec = upsert_pipeline(
            source,
            "${topic}",
            postgres.jdbc_url,
            sink__key__columns="id",
            value__converter__schemas__enable="true",
            sink__value__schema="",
            **keys,
        )
        return run_pipeline(spec, spark=spark)

    created = run(
        [
            (value_row(1, "Ada"), "clients", 1),
            (value_row(2, "Bob"), "clients", 2),
            (value_row(2, "Bob (vip)", 7), "vips", 2),
        ]
    )
    assert created.counts.written == 3
    result = run(
        [
            (value_row(1, "Ada L.", 10, email="ada@example.com"), "clients", 1),  # adds a column
            (None, "clients", 2),  # deletes clients' row 2, not vips'
            (value_row(3, "Cy", "high"), "clients", 3),  # score is an integer column
            (value_row(4, "Di", 4), "vips", 4),
        ],
        sink__schema__evolution="add_columns",
        errors__tolerance="all",
        errors__deadletterqueue__path=str(tmp_path / "dlq"),
        errors__deadletterqueue__context__headers__enable="true",
    )
    assert (result.counts.written, result.counts.dead_lettered) == (3, 1)
    letters = spark.read.json(str(tmp_path / "dlq")).collect()
    headers = [{h["key"]: h["value"] for h in letter["headers"]} for letter in letters]
    assert [(h["__connect.errors.stage"], h["__connect.errors.exception.message"]) for h in headers] == [
        ("TASK_PUT", "sink.table=clients: field 'score' is int in one schema and string in another; "
         "the table's type stays"),
    ]  # fmt: skip
    assert postgres.query("select id, name, score, email from clients order by id") == [
        ["1", "Ada L.", "10", "ada@example.com"]
    ]
    assert postgres.query("select id, name, score from vips order by id") == [["2", "Bob (vip)", "7"], ["4", "Di", "4"]]


def test_key_columns_missing_from_a_value_or_a_tombstones_key_fail_that_record_naming_the_column(tmp_path):
    spec = upsert_pipeline(
        str(tmp_path),
        "t",
        "jdbc:postgresql://127.0.0.1/x",
        sink__key__columns="id,region",
        sink__value__schema="id BIGINT NOT NULL, region STRING, name STRING",
    )
    records = pa.RecordBatch.from_pylist(
        [
            {"topic": "t", "key": None, "value": b'{"id": 1, "region": "eu"}'},
            {"topic": "t", "key": None, "value": b'{"id": 1}'},
            {"topic": "t", "key": b'{"id": 1, "region": null}', "value": None},
            {"topic": "t", "key": b"7", "value": None},
            {"topic": "t", "key": b'{"id": 1, "region": "eu"}', "value": None},
        ],
        schema=pa.schema([("topic", pa.string()), ("key", pa.binary()), ("value", pa.binary())]),
    )
    errors = {row: str(exc) for row, exc in spec.sink.record_errors(records)}
    assert errors == {
        1: "sink.write.mode=upsert: key column 'region' is missing or null in the value",
        2: "sink.write.mode=upsert: key column 'region' is missing or null in the tombstone's key",
        3: "sink.write.mode=upsert: the tombstone's key is int 7, not a struct with the key columns id, region",
    }


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        (
            {"path": "/t", "write.mode": "upsert"},
            "sink.write.mode: sink.write.mode=upsert updates and deletes rows: format parquet cannot; "
            "use format delta, iceberg or jdbc",
        ),
        (
            {"table": "t", "format": "jdbc", "option.url": "jdbc:mysql://db/x", "write.mode": "upsert"},
            "sink.option.url must be a jdbc:postgresql: URL, found 'jdbc:mysql://db/x'",
        ),
        (
            # JDBC, a format that runs on every PySpark (Delta is refused first where it has no release)
            {"table": "t", "format": "jdbc", "option.url": "jdbc:postgresql://db/x", "key.columns": "id"},
            "sink.key.columns: is read only with sink.write.mode=upsert",
        ),
    ],
)
def test_upsert_refusals_name_the_key(keys, message):
    with pytest.raises(ConfigError, match=message):
        TableSink().configure(keys, PluginContext("sink", "sink."))


def envelope(schema_fields: list[dict], payload: dict) -> str:
    return json.dumps({"schema": {"type": "struct", "optional": False, "fields": schema_fields}, "payload": payload})


KEY_FIELDS = [{"field": "id", "type": "int64", "optional": False}]
VALUE_FIELDS = [
    *KEY_FIELDS,
    {"field": "name", "type": "string", "optional": True},
    {"field": "score", "type": "int32", "optional": True},
]


def change_line(cid: int, name: str | None = None, score: int | str = 0, topic: str = "customers", **extra) -> str:
    """A jsonl record: a struct key and a struct value (JsonConverter's envelope, see value_row), or a tombstone."""
    record = {"topic": topic, "key": envelope(KEY_FIELDS, {"id": cid})}
    if name is not None:
        record["value"] = value_row(cid, name, score, **extra).decode()
    return json.dumps(record) + "\n"


ICEBERG_SINK = (
    "spark.sql.catalog.local=org.apache.iceberg.spark.SparkCatalog\nspark.sql.catalog.local.type=hadoop\n"
    "spark.sql.catalog.local.warehouse=warehouse\nsink.table=local.shop.${topic}\nsink.table.auto.create=true\n"
)


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["delta", "iceberg"])
def test_delta_and_iceberg_tables_merge_upserts_and_tombstones_in_streaming(tmp_path, fmt):
    """Routed by topic, each table created by micro-batch 0; in micro-batch 1 a new field adds a column,
    and a record whose field's type changed fails alone to the dead-letter queue."""
    (tmp_path / "in").mkdir()
    batches = [
        [
            change_line(1, "Ada"),
            change_line(2, "Bob"),
            change_line(3, "Cy"),
            change_line(2, "Bob (vip)", 7, topic="vip"),
        ],  # micro-batch 0 creates the tables
        [
            change_line(1, "Ada L.", 10, email="ada@example.com"),  # adds a column
            change_line(2),  # deletes row 2 of customers, not of vip
            change_line(3),
            change_line(3, "Cy again", 33),  # deleted then re-inserted: the last read wins
            change_line(4, "Di"),
            change_line(4, "Di B.", 44),
            change_line(5, "Eve"),
            change_line(5),  # inserted then deleted: no row
            change_line(6, "Fay", "high"),  # score is an int column: fails alone
            change_line(4, "Di", 4, topic="vip"),
        ],
    ]
    for number, lines in enumerate(batches):
        part = tmp_path / "in" / f"part{number}.jsonl"
        part.write_text("".join(lines))
        os.utime(part, (1_700_000_000 + number, 1_700_000_000 + number))  # the order the stream reads them
    where = ICEBERG_SINK if fmt == "iceberg" else "sink.path=tables/${topic}\n"
    (tmp_path / "pipeline.properties").write_text(
        "mode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
        "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
        "source=file\nsource.path=in\nsource.format=jsonl\nsource.max.files.per.trigger=1\n"
        "errors.tolerance=all\nerrors.deadletterqueue.path=dlq\nerrors.deadletterqueue.context.headers.enable=true\n"
        f"key.converter=json\nvalue.converter=json\nsink=table\nsink.format={fmt}\nsink.write.mode=upsert\n"
        f"sink.schema.evolution=add_columns\n{where}"
    )
    try:
        format_bundle(fmt)
    except UnsupportedSparkError:
        with pytest.raises(ConfigError, match=f"sink.format: Maven Central has no {fmt} release for Spark"):
            PipelineSpec.from_properties(tmp_path / "pipeline.properties")
        return
    tables = {
        topic: f"local.shop.{topic}" if fmt == "iceberg" else f"delta.`{tmp_path / 'tables' / topic}`"
        for topic in ("customers", "vip")
    }
    query = (
        f"SELECT 'customers', id, name, score, email FROM {tables['customers']} "
        f"UNION ALL SELECT 'vip', id, name, score, NULL FROM {tables['vip']} ORDER BY 1, 2"
    )
    done = subprocess.run(
        [sys.executable, "-m", "tests.connectors.table.run_and_query", "pipeline.properties", query],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        ["customers", 1, "Ada L.", 10, "ada@example.com"],
        ["customers", 3, "Cy again", 33, None],
        ["customers", 4, "Di B.", 44, None],
        ["vip", 2, "Bob (vip)", 7, None],
        ["vip", 4, "Di", 4, None],
    ]
    letters = [json.loads(text) for part in (tmp_path / "dlq").glob("*.json") for text in part.read_text().splitlines()]
    headers = [{h["key"]: h["value"] for h in letter["headers"]} for letter in letters]
    table = "sink.table=local.shop.customers" if fmt == "iceberg" else f"sink.path={tmp_path / 'tables' / 'customers'}"
    assert [(h["__connect.errors.stage"], h["__connect.errors.exception.message"]) for h in headers] == [
        ("TASK_PUT", f"{table}: field 'score' is int in one schema and string in another; the table's type stays")
    ]
