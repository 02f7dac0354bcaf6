"""A Debezium JSON file unwrapped into a table: the compiled path writes what the Python path writes.

The file holds PostgreSQL-connector change events as the JSON converter
writes them: creates, reads, updates, deletes, a truncate, a create with an
escaped string and a record that is not JSON.  With ``pipeline.compile=auto``
the creates, reads, updates and (rewrite mode) deletes take the compiled
path; the truncate is dropped, the escaped create written and the bad record
dead-lettered by the Python path; the table, the dead letters
and the counts equal those of ``pipeline.compile=off``.
"""

from __future__ import annotations

import json
import logging
import re

import pytest

from smt.benchmarks.cdc import PROPERTIES as CDC_BENCH_PROPERTIES
from smt.pipeline import PipelineSpec, run_pipeline
from tests.connectors.table.postgres import postgres  # noqa: F401 - the fixture

pytestmark = pytest.mark.spark
MODES = ("off", "auto")


def _field(field: str, kind: str, optional: bool = True, **extra) -> dict:
    return {"type": kind, "optional": optional, "field": field, **extra}


ROW = {
    "type": "struct",
    "fields": [
        _field("id", "int32", optional=False),
        _field("email", "string"),
        _field("score", "double"),
        _field("joined", "int64", name="org.apache.kafka.connect.data.Timestamp", version=1),
    ],
    "optional": True,
    "name": "srv.public.customers.Value",
}
SOURCE = {
    "type": "struct",
    "fields": [
        _field("version", "string", optional=False),
        _field("connector", "string", optional=False),
        _field("name", "string", optional=False),
        _field("ts_ms", "int64", optional=False),
        _field("db", "string", optional=False),
        _field("schema", "string", optional=False),
        _field("table", "string", optional=False),
        _field("lsn", "int64"),
    ],
    "optional": False,
    "name": "io.debezium.connector.postgresql.Source",
    "field": "source",
}
ENVELOPE = {
    "type": "struct",
    "fields": [
        {**ROW, "field": "before"},
        {**ROW, "field": "after"},
        SOURCE,
        _field("op", "string", optional=False),
        _field("ts_ms", "int64"),
    ],
    "optional": False,
    "name": "srv.public.customers.Envelope",
    "version": 1,
}


def _row(i: int) -> dict:
    return {
        "id": i,
        "email": None if i % 5 == 0 else f"u{i}@example.com",
        "score": i / 4,
        "joined": 1_700_000_000_000 + i,
    }


def _event(op: str, before: dict | None, after: dict | None, i: int) -> str:
    source = {"version": "3.6.1.Final", "connector": "postgresql", "name": "srv", "ts_ms": 1_000 + i, "db": "shop",
              "schema": "public", "table": "customers", "lsn": 100 + i}  # fmt: skip
    payload = {"before": before, "after": after, "source": source, "op": op, "ts_ms": 2_000 + i}
    return json.dumps({"schema": ENVELOPE, "payload": payload}, separators=(",", ":"))


def _events() -> list[str]:
    lines = [_event("r", None, _row(i), i) for i in range(40)]
    lines += [_event("c", None, _row(i), i) for i in range(40, 60)]
    lines += [_event("u", _row(i), {**_row(i), "email": "new@example.com"}, i) for i in range(0, 20)]
    lines += [_event("u", None, _row(i), i) for i in range(20, 25)]  # REPLICA IDENTITY DEFAULT: no before
    lines += [_event("d", _row(i), None, i) for i in range(50, 60)]
    lines.append(_event("c", None, {**_row(98), "email": 'a "quoted" one'}, 98))  # an escape: read in Python
    lines.append(_event("t", None, None, 99))  # a truncate: dropped
    lines.append('{"schema":' + json.dumps(ENVELOPE, separators=(",", ":")) + ',"payload":{"op":')  # not JSON
    return lines


def _spec(source: str, table: str, dlq: str, compile_mode: str) -> PipelineSpec:
    return PipelineSpec.from_properties(_spec_properties(source, table, dlq, compile_mode))


def _spec_properties(source: str, table: str, dlq: str, compile_mode: str) -> dict[str, str]:
    return {
        "source": "file",
        "source.path": source,
        "source.format": "text",
        "value.converter": "json",
        "transforms": "unwrap",
        "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
        "transforms.unwrap.delete.tombstone.handling.mode": "rewrite",
        "transforms.unwrap.add.fields": "op,table,source.ts_ms:changed_ms",
        "sink": "table",
        "sink.path": table,
        "errors.tolerance": "all",
        "errors.deadletterqueue.path": dlq,
        "pipeline.compile": compile_mode,
    }


def test_an_unwrapped_debezium_file_is_written_compiled_as_in_python(spark, tmp_path, caplog):
    source = tmp_path / "events.json"
    source.write_text("\n".join(_events()) + "\n")
    results = {}
    for mode in MODES:
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="smt.pipeline"):
            result = run_pipeline(_spec(str(source), str(tmp_path / mode), str(tmp_path / f"d-{mode}"), mode), spark)
        df = spark.read.parquet(str(tmp_path / mode))
        # A text file's records carry the time they were read: each run's own.
        letters = spark.read.json(str(tmp_path / f"d-{mode}")).drop("timestamp").collect()
        dead = sorted(json.dumps(r.asDict(recursive=True), default=str) for r in letters)
        results[mode] = (result.counts, df.schema.simpleString(), sorted(map(tuple, df.collect()), key=repr), dead)
        messages = [r.getMessage() for r in caplog.records]
        compiled = [m for m in messages if "take the compiled path" in m]
        assert bool(compiled) == (mode == "auto"), messages
    assert results["auto"] == results["off"]
    counts, columns, rows, dead = results["auto"]
    assert columns == (
        "struct<id:int,email:string,score:double,joined:timestamp,__deleted:string,"
        "__op:string,__table:string,__changed_ms:bigint>"
    )
    assert counts.read == 98 and counts.written == len(rows) == 96 and counts.filtered == 1 and len(dead) == 1
    assert sum(1 for row in rows if row[4] == "true") == 10  # the deletes, rewritten


# --- upserts: the keys read too, the tombstones dropped in the JVM, all or nothing ---------------------

KEY = {"type": "struct", "fields": [_field("id", "int32", optional=False)], "optional": False,
       "name": "srv.public.customers.Key"}  # fmt: skip


def _keyed(key: int, value: str | None, offset: int) -> str:
    """A jsonl record: the JSON converter's key envelope, and the value (None: a tombstone)."""
    payload = json.dumps({"schema": KEY, "payload": {"id": key}}, separators=(",", ":"))
    return json.dumps({"topic": "customers", "partition": 0, "offset": offset, "key": payload, "value": value})


#: Keys changed: more records than the plan's sample, so that a record at the end loses the bet in the write.
KEYS = 300


def _changes() -> list[tuple[int, str | None]]:
    """Each key's history in order, the keys interleaved: every 3rd deleted (and tombstoned), every 9th then
    created again."""
    changes = [(i, _event("c", None, _row(i), i)) for i in range(KEYS)]
    changes += [(i, _event("u", _row(i), {**_row(i), "email": f"v2-{i}@example.com"}, i)) for i in range(0, KEYS, 2)]
    for i in range(0, KEYS, 3):
        changes += [(i, _event("d", _row(i), None, i)), (i, None)]
    changes += [(i, _event("c", None, {**_row(i), "email": "again@example.com"}, i)) for i in range(0, KEYS, 9)]
    return changes


def _upsert_spec(source: str, url: str, table: str, compile_mode: str) -> PipelineSpec:
    """The cdc benchmark's pipeline (jsonl, JSON keys and values, unwrap in rewrite mode, an upsert whose soft
    deletes delete), into PostgreSQL."""
    jdbc = {"sink.format": "jdbc", "sink.table": table, "sink.option.url": url, "sink.option.user": "smt"}
    return PipelineSpec.from_properties(
        {**CDC_BENCH_PROPERTIES, "source.path": source, **jdbc, "pipeline.compile": compile_mode}
    )


@pytest.mark.parametrize(
    "extra, path",
    [
        ([], "betting that every record takes the compiled path"),
        # After the sample, an escaped string: not read exactly by Spark, so the bet is lost in the write
        # and every record runs in Python.
        ([(999, _event("c", None, {**_row(999), "email": 'a "quoted" one'}, 999))], "every record in Python"),
        # A key not read exactly (whitespace): likewise.
        ([(998, "raw key")], "every record in Python"),
    ],
    ids=["compiled", "a value in Python", "a key in Python"],
)
def test_an_upsert_of_debezium_changes_is_compiled_all_or_nothing_as_in_python(
    spark,
    tmp_path,
    caplog,
    postgres,  # noqa: F811
    extra,
    path,
):
    lines = [_keyed(key, value, offset) for offset, (key, value) in enumerate(_changes())]
    for key, value in extra:
        if value == "raw key":
            raw = json.dumps(
                {"schema": KEY, "payload": {"id": key}}
            )  # with spaces: Python reads it, Spark does not vouch
            line = {
                "topic": "customers",
                "partition": 0,
                "offset": 1000,
                "key": raw,
                "value": _event("c", None, _row(key), key),
            }
            lines.append(json.dumps(line))
        else:
            lines.append(_keyed(key, value, 1000))
    source = tmp_path / "changes.jsonl"
    source.write_text("\n".join(lines) + "\n")
    results = {}
    for mode in MODES:
        table = f"c_{mode}_{re.sub(r'[^a-z0-9]', '_', tmp_path.name.lower())[-24:]}"
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="smt.pipeline"):
            result = run_pipeline(_upsert_spec(str(source), postgres.jdbc_url, table, mode), spark)
        messages = " | ".join(r.getMessage() for r in caplog.records)
        if mode == "auto":
            assert path in messages, messages
        rows = postgres.query(f"select id, email, score, joined, __deleted from {table} order by id")
        results[mode] = (result.counts, rows)
    assert results["auto"] == results["off"]
    counts, rows = results["auto"]
    assert counts.filtered == len(range(0, KEYS, 3)) and counts.failed == 0  # the tombstones
    # The soft deletes delete their rows (delete.field), unless created again.
    by_id = {int(row[0]): row for row in rows}
    gone = {i for i in range(0, KEYS, 3) if i % 9}
    assert sorted(by_id) == sorted({*range(KEYS), *(key for key, _ in extra)} - gone)
    assert by_id[0][1] == "again@example.com" and by_id[0][4] == "false"  # deleted, then created again
    assert by_id[2][1] == "v2-2@example.com" and by_id[1][1] == _row(1)["email"]


def test_an_append_with_json_keys_splits_records_whose_keys_spark_does_not_read_exactly(spark, tmp_path, caplog):
    import pyarrow as pa
    import pyarrow.parquet as pq

    def key(i: int) -> bytes:
        return json.dumps({"schema": KEY, "payload": {"id": i}}, separators=(",", ":")).encode()

    keys = [key(i) for i in range(40)]
    keys[5] = json.dumps({"schema": KEY, "payload": {"id": 5}}).encode()  # spaces: Python reads it
    keys[9] = b'{"schema":' + json.dumps(KEY).encode() + b',"payload":{"id":'  # not JSON: fails in Python
    keys[12] = None  # no key: Python reads it as null
    values = [_event("c", None, _row(i), i).encode() for i in range(40)]
    source = tmp_path / "in.parquet"
    pq.write_table(
        pa.table(
            {
                "key": pa.array(keys, pa.binary()),
                "value": pa.array(values, pa.binary()),
                "topic": ["customers"] * 40,
                "partition": pa.array([0] * 40, pa.int32()),
                "offset": pa.array(range(40), pa.int64()),
            }
        ),  # fmt: skip
        source,
    )
    results = {}
    for mode in MODES:
        props = {
            **_spec_properties(str(source), str(tmp_path / mode), str(tmp_path / f"d-{mode}"), mode),
            "source.format": "parquet",
            "key.converter": "json",
        }
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="smt.pipeline"):
            result = run_pipeline(PipelineSpec.from_properties(props), spark)
        messages = " | ".join(r.getMessage() for r in caplog.records)
        assert ("take the compiled path" in messages) == (mode == "auto"), messages
        rows = sorted(map(tuple, spark.read.parquet(str(tmp_path / mode)).collect()), key=repr)
        letters = spark.read.json(str(tmp_path / f"d-{mode}")).select("offset").collect()
        results[mode] = (result.counts, rows, sorted(map(tuple, letters)))
    assert results["auto"] == results["off"]
    counts, rows, letters = results["auto"]
    assert counts.read == 40 and counts.written == len(rows) == 39 and letters == [(9,)]
