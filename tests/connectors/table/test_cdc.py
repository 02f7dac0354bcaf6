"""Change events into tables as Debezium writes them (connectors.table.cdc): soft deletes deleting rows
or kept as rows, unavailable (toasted) values never overwriting a stored one, deletes reaching the row
of a partitioned table; into a real PostgreSQL, and into Delta where its jars run on this Spark."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from connectors.table import TableSink
from connectors.table.cdc import ChangeRules, placeholder_bytes
from connectors.table.jars import UnsupportedSparkError, format_bundle
from smt.errors import ConfigError
from smt.pipeline import PipelineSpec, run_pipeline
from smt.plugin import PluginContext
from tests.connectors.table.postgres import postgres  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parents[3]
PLACEHOLDER = "__debezium_unavailable_value"


def envelope(fields: list[dict], payload: dict | None) -> bytes | None:
    """JsonConverter's envelope (schemas.enable=true); ``None`` for a tombstone."""
    if payload is None:
        return None
    return json.dumps({"schema": {"type": "struct", "optional": False, "fields": fields}, "payload": payload}).encode()


def field(name: str, kind: str, **more) -> dict:
    return {"field": name, "type": kind, "optional": name != "id", **more}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def jdbc_pipeline(source: str, table: str, url: str, **keys) -> PipelineSpec:
    return PipelineSpec.from_properties(
        {
            "source": "file",
            "source.path": source,
            "source.format": "parquet",
            "key.converter": "json",
            "value.converter": "json",
            "sink": "table",
            "sink.format": "jdbc",
            "sink.table": table,
            "sink.option.url": url,
            "sink.option.user": "smt",
            "sink.write.mode": "upsert",
            **{k.replace("__", "."): v for k, v in keys.items()},
        }
    )


# --- the rules on Arrow rows -----------------------------------------------------------


def test_soft_deletes_are_true_or_the_string_true_of_the_named_field():
    rows = pa.table(
        {"id": [1, 2, 3, 4], "__deleted": ["false", "true", None, "TRUE"], "flag": [True, None, False, True]}
    )
    assert ChangeRules("__deleted").soft_deletes(rows).to_pylist() == [False, True, False, True]
    assert ChangeRules("flag").soft_deletes(rows).to_pylist() == [True, False, False, True]
    assert ChangeRules("").soft_deletes(rows).to_pylist() == [False] * 4
    assert ChangeRules("absent").soft_deletes(rows).to_pylist() == [False] * 4


def test_each_of_debeziums_placeholder_forms_is_nulled_and_listed():
    raw = PLACEHOLDER.encode()
    rows = pa.table(
        {
            "id": [1, 2, 3],
            "text": [PLACEHOLDER, "kept", None],
            "blob": [b"kept", raw, None],
            "codes": pa.array([[1], list(raw), None], pa.list_(pa.int64())),
            "tags": [[PLACEHOLDER], ["a", PLACEHOLDER], ["6b6cbd1c-0d7e-3bd4-9a5f-3b51b0bf0bf5"]],
            "ids": [["x"], ["5e3b4a44-0000-3000-8000-000000000000"], [_name_uuid(raw)]],
            "attrs": pa.array([[(PLACEHOLDER, PLACEHOLDER)], None, [("a", "b")]], pa.map_(pa.string(), pa.string())),
        }
    )
    marked = ChangeRules(placeholder=raw).mark_unavailable(rows, ["text", "blob", "codes", "tags", "ids", "attrs"])
    assert marked.to_pylist() == [
        {"id": 1, "text": None, "blob": b"kept", "codes": [1], "tags": None, "ids": ["x"], "attrs": None,
         "_smt_unavailable": ["text", "tags", "attrs"]},
        {"id": 2, "text": "kept", "blob": None, "codes": None, "tags": ["a", PLACEHOLDER],
         "ids": ["5e3b4a44-0000-3000-8000-000000000000"], "attrs": None, "_smt_unavailable": ["blob", "codes"]},
        {"id": 3, "text": None, "blob": None, "codes": None, "tags": ["6b6cbd1c-0d7e-3bd4-9a5f-3b51b0bf0bf5"],
         "ids": None, "attrs": [("a", "b")], "_smt_unavailable": ["ids"]},
    ]  # fmt: skip


_FORMS_DDL = (
    "id bigint, text string, blob binary, codes array<bigint>, bytes8 array<tinyint>, tags array<string>, "
    "ids array<string>, attrs map<string,string>, __deleted string, flag boolean"
)


@pytest.mark.spark
@pytest.mark.parametrize("placeholder", [PLACEHOLDER.encode(), b"\x00\xff\x7f\x80"], ids=["text", "hex"])
def test_the_rules_in_spark_sql_give_the_rows_the_rules_on_arrow_give(spark, placeholder):
    text = placeholder.decode(errors="replace")
    signed = [b - 256 if b > 127 else b for b in placeholder]
    rows = [
        (1, text, b"kept", [1], signed, [text], ["x"], {text: text}, "false", True),
        (2, "kept", placeholder, signed, [1], ["a", text], [_name_uuid(placeholder)], None, "TRUE", None),
        (3, None, None, None, None, [_name_uuid(placeholder)], None, {"a": "b"}, None, False),
        (4, text + "!", placeholder + b"!", signed + [0], signed[:1], [], [text], {text: "other"}, "yes", True),
    ]
    df = spark.createDataFrame(rows, _FORMS_DDL)
    columns = df.schema
    names = ["text", "blob", "codes", "bytes8", "tags", "ids", "attrs"]
    for rules in (ChangeRules("__deleted", placeholder), ChangeRules("flag", placeholder), ChangeRules("", None)):
        in_spark = df.withColumns(rules.unavailable_columns(columns, names) if rules.placeholder else {})
        in_spark = in_spark.withColumn("deleted", rules.soft_delete_column(columns)).orderBy("id")
        arrow = df.orderBy("id").toArrow()
        expected = rules.mark_unavailable(arrow, names) if rules.placeholder else arrow
        expected = expected.append_column("deleted", rules.soft_deletes(arrow))
        got = in_spark.toArrow()
        assert got.column_names == expected.column_names
        for name in got.column_names:
            assert got.column(name).to_pylist() == expected.column(name).to_pylist(), (rules, name)
    # Each form was seen: a rule that never matched would pass the comparison too.
    listed = df.withColumns(ChangeRules("", placeholder).unavailable_columns(columns, names)).orderBy("id")
    assert [r["_smt_unavailable"] for r in listed.collect()] == [
        ["text", "bytes8", "tags", "attrs"],
        ["blob", "codes", "ids"],
        ["tags"],
        ["ids"],
    ]


def _name_uuid(data: bytes) -> str:
    """Java's UUID.nameUUIDFromBytes, computed here apart from the code under test."""
    import hashlib

    digest = bytearray(hashlib.md5(data).digest())
    digest[6] = (digest[6] & 0x0F) | 0x30
    digest[8] = (digest[8] & 0x3F) | 0x80
    hexed = digest.hex()
    return f"{hexed[:8]}-{hexed[8:12]}-{hexed[12:16]}-{hexed[16:20]}-{hexed[20:]}"


def test_a_hex_placeholder_is_its_bytes_and_a_bad_one_is_refused_naming_the_key():
    assert placeholder_bytes("hex:00ff7f") == b"\x00\xff\x7f"
    assert placeholder_bytes("plain") == b"plain"
    keys = {
        "format": "jdbc",
        "table": "t",
        "option.url": "jdbc:postgresql://127.0.0.1/x",
        "write.mode": "upsert",
        "unavailable.value.placeholder": "hex:0g",
    }
    with pytest.raises(ConfigError, match="sink.unavailable.value.placeholder.*'hex:' must be followed by"):
        TableSink().configure(keys, PluginContext("sink", "sink."))


def test_a_delete_field_without_upsert_is_refused_naming_the_key():
    keys = {"format": "parquet", "path": "/tmp/x", "delete.field": "__deleted"}
    with pytest.raises(ConfigError, match="sink.delete.field: is read only with sink.write.mode=upsert"):
        TableSink().configure(keys, PluginContext("sink", "sink."))


# --- into PostgreSQL -------------------------------------------------------------------

KEY = [field("id", "int64")]
CUSTOMER = [field("id", "int64"), field("name", "string"), field("__deleted", "string")]


def customer(cid: int, name: str, deleted: bool = False) -> bytes:
    """ExtractNewRecordState's value in rewrite mode: the row, with __deleted "true" for a delete."""
    return envelope(CUSTOMER, {"id": cid, "name": name, "__deleted": "true" if deleted else "false"})


@pytest.mark.spark
def test_rewrite_modes_soft_deletes_delete_the_row_with_delete_field_or_are_kept_as_rows(spark, kafka_input, postgres):  # noqa: F811
    changes = [
        customer(1, "Ada"),
        customer(2, "Bob"),
        customer(3, "Cy"),
        customer(2, "Bob", deleted=True),  # deletes row 2
        customer(3, "Cy", deleted=True),  # deleted ...
        customer(3, "Cy again"),  # ... and inserted again: the last read wins
        customer(4, "Di", deleted=True),  # a delete of a row never written
    ]
    keys = [envelope(KEY, {"id": json.loads(v)["payload"]["id"]}) for v in changes]
    source = kafka_input(changes, keys=keys)
    run = run_pipeline(
        jdbc_pipeline(source, "deleting", postgres.jdbc_url, sink__delete__field="__deleted"), spark=spark
    )
    assert (run.counts.written, run.counts.failed) == (7, 0)
    assert postgres.query("select id, name, __deleted from deleting order by id") == [
        ["1", "Ada", "false"],
        ["3", "Cy again", "false"],
    ]
    run_pipeline(jdbc_pipeline(source, "keeping", postgres.jdbc_url), spark=spark)
    assert postgres.query("select id, name, __deleted from keeping order by id") == [
        ["1", "Ada", "false"],
        ["2", "Bob", "true"],
        ["3", "Cy again", "false"],
        ["4", "Di", "true"],
    ]


DOC = [
    field("id", "int64"),
    field("title", "string"),
    field("body", "string"),
    field("blob", "bytes"),
    field("codes", "array", items={"type": "int32"}),
    field("tags", "array", items={"type": "string"}),
]


def doc(cid: int, title: str, body, blob, codes, tags) -> bytes:
    return envelope(DOC, {"id": cid, "title": title, "body": body, "blob": blob, "codes": codes, "tags": tags})


@pytest.mark.spark
def test_a_toasted_columns_placeholder_never_overwrites_a_stored_value(spark, kafka_input, postgres):  # noqa: F811
    postgres.query(
        "create table docs (id bigint primary key, title text, body text, blob bytea, codes integer[], tags text[]);"
        "insert into docs values (1, 't1', 'long body 1', '\\x0102', '{7,8}', '{a,b}'),"
        " (2, 't2', 'long body 2', '\\x03', '{9}', '{c}'), (3, 't3', 'long body 3', null, null, null)"
    )
    raw = PLACEHOLDER.encode()
    as_ints = list(raw)
    changes = [
        # Every toastable column unavailable: only the title changes.
        doc(1, "t1 new", PLACEHOLDER, b64(raw), as_ints, [PLACEHOLDER]),
        # Row 2: the body changes, then a later change of the batch leaves it unavailable: the first's stays.
        doc(2, "t2 new", "new body 2", b64(b"\x04"), [10], ["d"]),
        doc(2, "t2 newer", PLACEHOLDER, b64(raw), as_ints, [PLACEHOLDER]),
        # A real null is written.
        doc(3, "t3 new", None, None, None, None),
        # A new row with an unavailable value: nothing stored to keep, so null.
        doc(4, "t4", PLACEHOLDER, b64(b"\x05"), [1], ["e"]),
    ]
    keys = [envelope(KEY, {"id": json.loads(v)["payload"]["id"]}) for v in changes]
    run = run_pipeline(jdbc_pipeline(kafka_input(changes, keys=keys), "docs", postgres.jdbc_url), spark=spark)
    assert (run.counts.written, run.counts.failed) == (5, 0)
    assert postgres.query("select id, title, body, encode(blob, 'hex'), codes, tags from docs order by id") == [
        ["1", "t1 new", "long body 1", "0102", "{7,8}", "{a,b}"],
        ["2", "t2 newer", "new body 2", "04", "{10}", "{d}"],
        ["3", "t3 new", "", "", "", ""],
        ["4", "t4", "", "05", "{1}", "{e}"],
    ]
    # Turned off (an empty placeholder), the placeholder is a value like any other.
    later = [doc(1, "t1 off", PLACEHOLDER, None, None, None)]
    source = kafka_input(later, keys=[envelope(KEY, {"id": 1})])
    run_pipeline(
        jdbc_pipeline(source, "docs", postgres.jdbc_url, sink__unavailable__value__placeholder=""), spark=spark
    )
    assert postgres.query("select title, body from docs where id = 1") == [["t1 off", PLACEHOLDER]]


ORDER_KEY = [field("id", "int64"), field("region", "string", optional=False)]
ORDER = [*ORDER_KEY, field("amount", "int32"), field("__deleted", "string")]


def order(oid: int, region: str, amount: int | None, deleted: bool = False) -> tuple[bytes, bytes | None]:
    """(key, value) of an order; ``amount`` None: a tombstone."""
    key = envelope(ORDER_KEY, {"id": oid, "region": region})
    value = {"id": oid, "region": region, "amount": amount, "__deleted": "true" if deleted else "false"}
    return key, envelope(ORDER, value) if amount is not None else None


@pytest.mark.spark
def test_deletes_reach_the_row_of_a_partitioned_postgresql_table(spark, kafka_input, postgres):  # noqa: F811
    postgres.query(
        "create table orders (id bigint, region text, amount integer, __deleted text, primary key (id, region)) "
        "partition by list (region);"
        "create table orders_eu partition of orders for values in ('eu');"
        "create table orders_us partition of orders for values in ('us');"
        "insert into orders values (1, 'eu', 10, 'false'), (1, 'us', 11, 'false'), (2, 'eu', 20, 'false'),"
        " (2, 'us', 21, 'false'), (3, 'us', 31, 'false')"
    )
    changes = [
        order(1, "eu", None),  # a tombstone: only (1, eu)
        order(2, "us", 21, deleted=True),  # a soft delete: only (2, us)
        order(3, "us", 32),  # an update in its partition
        order(4, "eu", 40),  # a new row
    ]
    source = kafka_input([v for _, v in changes], keys=[k for k, _ in changes])
    run = run_pipeline(jdbc_pipeline(source, "orders", postgres.jdbc_url, sink__delete__field="__deleted"), spark=spark)
    assert (run.counts.written, run.counts.failed) == (4, 0)
    assert postgres.query("select tableoid::regclass, id, region, amount from orders order by id, region") == [
        ["orders_us", "1", "us", "11"],
        ["orders_eu", "2", "eu", "20"],
        ["orders_us", "3", "us", "32"],
        ["orders_eu", "4", "eu", "40"],
    ]


# --- into Delta ------------------------------------------------------------------------


def change_line(key: bytes, value: bytes | None) -> str:
    record = {"topic": "orders", "key": key.decode()}
    if value is not None:
        record["value"] = value.decode()
    return json.dumps(record) + "\n"


DELTA_ORDER = [field("id", "int64"), field("region", "string"), field("note", "string"), field("__deleted", "string")]


def delta_order(oid: int, region: str, note: str | None, deleted: bool = False) -> str:
    """A change line keyed by id only (the partition column is not in the key)."""
    value = {"id": oid, "region": region, "note": note, "__deleted": "true" if deleted else "false"}
    return change_line(envelope(KEY, {"id": oid}), envelope(DELTA_ORDER, value) if note is not None else None)


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_partitioned_delta_table_takes_deletes_soft_deletes_and_keeps_toasted_values(tmp_path):
    (tmp_path / "in").mkdir()
    batches = [
        [
            delta_order(1, "eu", "n1"),
            delta_order(2, "us", "n2"),
            delta_order(3, "eu", "n3"),
            delta_order(4, "us", "n4"),
        ],
        [
            delta_order(1, "eu", None),  # a tombstone with the key only: the row in partition eu goes
            delta_order(2, "us", "n2", deleted=True),  # a soft delete
            delta_order(3, "eu", PLACEHOLDER),  # unavailable: n3 stays
            delta_order(4, "eu", "n4 moved"),  # moves to another partition
        ],
    ]
    for number, lines in enumerate(batches):
        part = tmp_path / "in" / f"part{number}.jsonl"
        part.write_text("".join(lines))
        os.utime(part, (1_700_000_000 + number, 1_700_000_000 + number))
    (tmp_path / "pipeline.properties").write_text(
        "mode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
        "spark.master=local[2]\nspark.ui.enabled=false\nspark.sql.shuffle.partitions=2\n"
        "source=file\nsource.path=in\nsource.format=jsonl\nsource.max.files.per.trigger=1\n"
        "key.converter=json\nvalue.converter=json\nsink=table\nsink.format=delta\nsink.path=orders\n"
        "sink.write.mode=upsert\nsink.key.columns=id\nsink.partition.by=region\nsink.delete.field=__deleted\n"
    )
    try:
        format_bundle("delta")
    except UnsupportedSparkError:
        with pytest.raises(ConfigError, match="sink.format: Maven Central has no delta release for Spark"):
            PipelineSpec.from_properties(tmp_path / "pipeline.properties").spark_conf()
        return
    table = f"delta.`{tmp_path / 'orders'}`"
    # Each row with the partition folder its file is in.
    query = (
        f"SELECT id, region, note, regexp_extract(_metadata.file_path, 'region=([a-z]+)/', 1) FROM {table} ORDER BY id"
    )
    done = subprocess.run(
        [sys.executable, "-m", "tests.connectors.table.run_and_query", "pipeline.properties", query],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        [3, "eu", "n3", "eu"],
        [4, "eu", "n4 moved", "eu"],
    ]


# --- Debezium's change events through ExtractNewRecordState into PostgreSQL ---------------

ROW = [field("id", "int64"), field("email", "string"), field("bio", "string")]
SOURCE = [field("version", "string"), field("table", "string"), field("lsn", "int64")]


def change_event(op: str, before: dict | None, after: dict | None, lsn: int) -> bytes:
    """A PostgreSQL connector's change event as JsonConverter writes it (schemas.enable=true)."""
    row_schema = {"type": "struct", "optional": True, "name": "shop.public.customers.Value", "fields": ROW}
    fields = [
        {**row_schema, "field": "before"},
        {**row_schema, "field": "after"},
        {"type": "struct", "optional": False, "name": "io.debezium.connector.postgresql.Source", "field": "source",
         "fields": SOURCE},
        field("op", "string", optional=False),
        field("ts_ms", "int64"),
    ]  # fmt: skip
    source = {"version": "3.6.1.Final", "table": "customers", "lsn": lsn}
    payload = {"before": before, "after": after, "source": source, "op": op, "ts_ms": 1_700_000_000_000 + lsn}
    schema = {"type": "struct", "optional": False, "name": "shop.public.customers.Envelope", "fields": fields}
    return json.dumps({"schema": schema, "payload": payload}).encode()


@pytest.mark.spark
def test_debeziums_events_unwrapped_and_masked_upsert_a_postgresql_table(spark, kafka_input, postgres):  # noqa: F811
    def person(cid: int, email: str, bio: str) -> dict:
        return {"id": cid, "email": email, "bio": bio}

    postgres.query("create table people (id bigint primary key, email text, bio text, __op text, __deleted text)")
    events = [
        (1, change_event("r", None, person(1, "ada@x.org", "long bio 1"), 1)),
        (2, change_event("c", None, person(2, "bob@x.org", "long bio 2"), 2)),
        (3, change_event("c", None, person(3, "cy@x.org", "long bio 3"), 3)),
        (1, change_event("u", person(1, "ada@x.org", PLACEHOLDER), person(1, "ada@y.org", PLACEHOLDER), 4)),
        (2, change_event("d", person(2, "bob@x.org", PLACEHOLDER), None, 5)),
        (2, None),  # the connector's tombstone after a delete: dropped by rewrite mode
    ]
    source = kafka_input([v for _, v in events], keys=[envelope(KEY, {"id": k}) for k, _ in events])
    spec = jdbc_pipeline(
        source,
        "people",
        postgres.jdbc_url,
        transforms="unwrap,mask",
        transforms__unwrap__type="io.debezium.transforms.ExtractNewRecordState",
        transforms__unwrap__delete__tombstone__handling__mode="rewrite",
        transforms__unwrap__add__fields="op",
        transforms__mask__type="org.apache.kafka.connect.transforms.MaskField$Value",
        transforms__mask__fields="email",
        transforms__mask__replacement="****",
        sink__delete__field="__deleted",
    )
    run = run_pipeline(spec, spark=spark)
    assert run.counts.failed == 0
    # Rows 1 to 3; the update of row 1 keeps its toasted bio; the delete of row 2 (a soft delete) deletes it.
    assert postgres.query("select id, email, bio, __op, __deleted from people order by id") == [
        ["1", "****", "long bio 1", "u", "false"],
        ["3", "****", "long bio 3", "c", "false"],
    ]
