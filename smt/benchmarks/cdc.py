"""CDC benchmark: Debezium change events → ExtractNewRecordState → upsert into Delta, against hand-written PySpark.

Writes, once, a snapshot of ``customers`` (``op=r``) and ``40_000 × scale``
change events after it, in the layout Debezium's PostgreSQL connector writes
with JsonConverter and schemas (``before``/``after``/``source``/``op``/
``ts_ms``; one jsonl record per line, its key and value the converter's
text): creates, updates, and deletes each followed by its tombstone.  The
snapshot is upserted once into a template Delta table; each timed run starts
from a copy of it (the copy is not timed) and merges the change events:

- ours: ``file(jsonl) → json → unwrap`` (``io.debezium.transforms.
  ExtractNewRecordState``, ``delete.tombstone.handling.mode=rewrite``) ``→
  sink=table`` (``write.mode=upsert``, ``delete.field=__deleted``);
- baseline: ``spark.read.text → from_json`` with the envelope's schema, the
  same unwrap in Spark SQL (``after``, or ``before`` with ``__deleted`` for
  ``op=d``; tombstones dropped), the latest change per key by the source's
  LSN, and Delta's ``MERGE`` (matched and deleted: delete; matched: update
  all; not matched and not deleted: insert all).

After the warm-up both tables must hold the same rows, or the benchmark
fails.  The target is ours ≥ 0.8× the baseline's records/s.  ``python -m
smt.benchmarks.cdc [scale]`` prints the table.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from typing import Any, Callable, Protocol, Sequence

from smt.benchmarks._common import Comparison, Measurement, measure
from smt.local.spark_session import local_spark

#: Change events at scale 1 (the snapshot has half as many rows).
RECORDS = 40_000
TARGET_RATIO = 0.8
#: Timed rounds of each side (best of), after one untimed warm-up of each.
ROUNDS = 3

_TOPIC = "shop.public.customers"
_ROW_FIELDS = [
    {"type": "int64", "optional": False, "field": "id"},
    {"type": "string", "optional": True, "field": "name"},
    {"type": "string", "optional": True, "field": "email"},
    {"type": "string", "optional": True, "field": "bio"},
]
_ROW = {"type": "struct", "optional": True, "name": f"{_TOPIC}.Value", "fields": _ROW_FIELDS}
_SOURCE_FIELDS = [
    {"type": "string", "optional": False, "field": "version"},
    {"type": "string", "optional": False, "field": "connector"},
    {"type": "string", "optional": False, "field": "db"},
    {"type": "string", "optional": False, "field": "schema"},
    {"type": "string", "optional": False, "field": "table"},
    {"type": "int64", "optional": True, "field": "lsn"},
    {"type": "int64", "optional": False, "field": "ts_ms"},
]
_ENVELOPE = {
    "type": "struct",
    "optional": False,
    "name": f"{_TOPIC}.Envelope",
    "version": 2,
    "fields": [
        {**_ROW, "field": "before"},
        {**_ROW, "field": "after"},
        {"type": "struct", "optional": False, "name": "io.debezium.connector.postgresql.Source", "field": "source",
         "fields": _SOURCE_FIELDS},
        {"type": "string", "optional": False, "field": "op"},
        {"type": "int64", "optional": True, "field": "ts_ms"},
    ],
}  # fmt: skip
_KEY = {"type": "struct", "optional": False, "name": f"{_TOPIC}.Key", "fields": [_ROW_FIELDS[0]]}
_ROW_DDL = "struct<id:bigint,name:string,email:string,bio:string>"
_ENVELOPE_DDL = (
    f"struct<payload:struct<before:{_ROW_DDL},after:{_ROW_DDL},source:struct<lsn:bigint,ts_ms:bigint>,"
    "op:string,ts_ms:bigint>>"
)
#: The table's columns: the row's, and the field the unwrap adds in rewrite mode.
COLUMNS = ("id", "name", "email", "bio", "__deleted")


def run(scale: float = 1.0) -> list[Comparison]:
    records = max(1_000, int(RECORDS * scale))
    work = tempfile.mkdtemp(prefix="smt-bench-cdc-")
    server = None
    try:
        delta = _delta_runs()
        server = postgres()
        if not delta and server is None:
            return []
        targets: list[Tables] = [DeltaTables(work)] if delta else []
        if server is not None:
            targets.append(PostgresTables(server.jdbc_url(), server.query))
        spark = session([target.format for target in targets])
        snapshot, changes = os.path.join(work, "snapshot"), os.path.join(work, "changes")
        written = write_events(snapshot, changes, records)
        comparisons = []
        for target in targets:
            run_ours(spark, snapshot, target, target.template)
            comparisons.append(compare(spark, changes, target, written))
        return comparisons
    finally:
        if server is not None:
            server.stop()
            shutil.rmtree(server.state_dir, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


def _delta_runs() -> bool:
    from connectors.table.jars import UnsupportedSparkError, format_bundle

    try:
        format_bundle("delta")
    except UnsupportedSparkError as exc:
        print(f"cdc benchmark: no delta row: {exc}", file=sys.stderr)
        return False
    return True


def postgres() -> Any:
    """A PostgreSQL server of the machine's, started in a temporary folder of its own (one the server's
    user reaches under root), or None, with a note, where none is installed."""
    from smt.local.postgres import LocalPostgres, PostgresError

    server = LocalPostgres(tempfile.mkdtemp(prefix="smt-bench-cdc-postgres-"))
    try:
        server.start(port=0, fresh=True)
    except PostgresError as exc:
        print(f"cdc benchmark: no postgresql row: {exc}", file=sys.stderr)
        shutil.rmtree(server.state_dir, ignore_errors=True)
        return None
    return server


class Tables(Protocol):
    """Where one row of the benchmark upserts: its tables, how to copy and read one, and the baseline's merge."""

    #: ``sink.format``.
    format: str
    #: The table the snapshot is upserted into, untimed; each run starts from a copy of it.
    template: str
    #: The baseline's merge, in a few words.
    merge: str

    def sink(self, table: str) -> dict[str, str]:
        """Our pipeline's ``sink.*`` keys writing ``table``."""
        ...

    def copy(self, name: str) -> str:
        """A fresh copy of the template named ``name``."""
        ...

    def read(self, spark: Any, table: str) -> Any:
        """The rows of ``table``: a DataFrame of :data:`COLUMNS`."""
        ...

    def merge_changes(self, spark: Any, changes: Any, table: str) -> None:
        """The baseline's merge of ``changes`` (the latest change per key, with ``__deleted``) into ``table``."""
        ...


class DeltaTables:
    """Delta tables, folders of ``work``; the baseline merges with Delta's ``MERGE``."""

    format = "delta"
    merge = "MERGE"

    def __init__(self, work: str) -> None:
        self.work = work
        self.template = os.path.join(work, "template")

    def sink(self, table: str) -> dict[str, str]:
        return {"sink.format": "delta", "sink.path": table}

    def copy(self, name: str) -> str:
        path = os.path.join(self.work, name)
        shutil.copytree(self.template, path)
        return path

    def read(self, spark: Any, table: str) -> Any:
        return spark.read.format("delta").load(table).select(*COLUMNS)

    def merge_changes(self, spark: Any, changes: Any, table: str) -> None:
        changes.createOrReplaceTempView("smt_bench_cdc_changes")
        spark.sql(
            f"MERGE INTO delta.`{table}` t USING smt_bench_cdc_changes s ON t.id = s.id "
            "WHEN MATCHED AND s.__deleted = 'true' THEN DELETE "
            "WHEN MATCHED THEN UPDATE SET * "
            "WHEN NOT MATCHED AND s.__deleted = 'false' THEN INSERT *"
        )


class PostgresTables:
    """PostgreSQL tables over JDBC; the baseline writes its changes to a staging table with Spark's JDBC
    writer, then deletes and ``INSERT ... ON CONFLICT``s from it in one transaction, through the driver's
    JDBC connection."""

    format = "jdbc"
    merge = "INSERT … ON CONFLICT"
    template = "customers_template"

    def __init__(self, url: str, query: Callable[[str], Any]) -> None:
        self.url = url
        self.query = query

    def sink(self, table: str) -> dict[str, str]:
        return {"sink.format": "jdbc", "sink.table": table, "sink.option.url": self.url,
                "sink.option.user": "postgres"}  # fmt: skip

    def copy(self, name: str) -> str:
        self.query(
            f"DROP TABLE IF EXISTS {name}; CREATE TABLE {name} (LIKE {self.template} INCLUDING ALL); "
            f"INSERT INTO {name} SELECT * FROM {self.template}"
        )
        return name

    def read(self, spark: Any, table: str) -> Any:
        return spark.read.jdbc(self.url, table, properties=self._properties()).select(*COLUMNS)

    def merge_changes(self, spark: Any, changes: Any, table: str) -> None:
        staging = f"{table}_changes"
        changes.write.jdbc(self.url, staging, mode="overwrite", properties=self._properties())
        updated = ", ".join(f"{name} = EXCLUDED.{name}" for name in COLUMNS[1:])
        columns = ", ".join(COLUMNS)
        statements = [
            f"DELETE FROM {table} t USING {staging} s WHERE t.id = s.id AND s.__deleted = 'true'",
            f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {staging} WHERE __deleted = 'false' "
            f"ON CONFLICT (id) DO UPDATE SET {updated}",
            f"DROP TABLE {staging}",
        ]
        jvm = spark._jvm
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        driver = jvm.java.lang.Class.forName("org.postgresql.Driver", True, loader).newInstance()
        properties = jvm.java.util.Properties()
        properties.setProperty("user", "postgres")
        connection = driver.connect(self.url, properties)
        try:
            connection.setAutoCommit(False)
            statement = connection.createStatement()
            for sql in statements:
                statement.execute(sql)
            connection.commit()
        finally:
            connection.close()

    def _properties(self) -> dict[str, str]:
        return {"user": "postgres", "driver": "org.postgresql.Driver"}


def compare(spark: Any, changes: str, tables: Tables, records: int, rounds: int = ROUNDS) -> Comparison:
    """Ours and the baseline merging ``changes`` into copies of the template of ``tables``: a warm-up of
    each, checked equal, then the best of ``rounds`` taken alternately (each from a fresh copy, the copy
    untimed)."""
    sides = {
        "smt, unwrap → sink=table upsert": run_ours,
        f"PySpark from_json + {tables.merge}": run_handwritten,
    }
    warmed = {label: tables.copy(warmup_table(i)) for i, label in enumerate(sides)}
    for label, job in sides.items():
        job(spark, changes, tables, warmed[label])
    check_same_tables(spark, tables, *warmed.values())
    best: dict[str, Measurement] = {}
    for round_ in range(rounds):
        for i, (label, job) in enumerate(sides.items()):
            table = tables.copy(f"round{round_}_{i}")
            result = measure(label, records, lambda job=job, table=table: job(spark, changes, tables, table))
            if label not in best or result.seconds < best[label].seconds:
                best[label] = result
    ours, baseline = (best[label] for label in sides)
    name = "postgresql" if tables.format == "jdbc" else tables.format
    return Comparison(f"cdc: Debezium JSON → unwrap → {name} upsert", ours, baseline, TARGET_RATIO)


def warmup_table(side: int) -> str:
    """The name of the table :func:`compare`'s warm-up of ``side`` (0: ours, 1: the baseline) leaves."""
    return f"warmup_{side}"


def check_same_tables(spark: Any, tables: Tables, ours: str, baseline: str) -> None:
    """Fail loudly unless the two tables hold the same rows (the same columns, in any order)."""
    left, right = tables.read(spark, ours), tables.read(spark, baseline)
    only_ours, only_baseline = left.exceptAll(right).limit(3).collect(), right.exceptAll(left).limit(3).collect()
    if only_ours or only_baseline:
        raise AssertionError(
            f"cdc benchmark: the two jobs differ: rows only in ours {only_ours}, only in the baseline {only_baseline}"
        )


def session(formats: Sequence[str]) -> Any:
    """A local session with each table format's jars and settings."""
    from connectors.table.jars import formats_spark_conf

    return local_spark("smt-bench-cdc", formats_spark_conf(formats, "sink."))


def write_events(snapshot: str, changes: str, records: int) -> int:
    """A snapshot (``op=r``) of ``records // 2`` customers in ``snapshot``, and about ``records`` change
    events after it in ``changes``; the number of change events.

    Of the snapshot's customers, each is updated, every 4th twice, every 5th then deleted; new customers
    are created, every 3rd then updated, every 7th then deleted.  Each key's changes are in order, the
    keys interleaved; the LSN grows with the line.
    """
    os.makedirs(snapshot)
    os.makedirs(changes)
    existing = records // 2
    lsn = 0
    with open(os.path.join(snapshot, "snapshot.jsonl"), "w", encoding="utf-8") as out:
        for key in range(existing):
            lsn += 1
            out.write(_line(key, "r", None, _customer(key, 0), lsn))
    written = 0
    with open(os.path.join(changes, "changes.jsonl"), "w", encoding="utf-8") as out:
        key_old, key_new = 0, existing
        while written < records:
            for key, created in ((key_old, False), (key_new, True)):
                for line in _history(key, created, lsn):
                    out.write(line)
                    lsn += 1
                    written += 1
            key_old, key_new = (key_old + 1) % existing, key_new + 1
    return written


def _history(key: int, created: bool, lsn: int) -> list[str]:
    """The change events of one customer, from ``lsn`` on: a create or an update, maybe more, maybe a delete."""
    state = 0
    lines = []
    if created:
        lines.append(_line(key, "c", None, _customer(key, 0), lsn))
    else:
        lines.append(_line(key, "u", _customer(key, 0), _customer(key, 1), lsn))
        state = 1
    if (created and key % 3 == 0) or (not created and key % 4 == 0):
        lines.append(_line(key, "u", _customer(key, state), _customer(key, state + 1), lsn + len(lines)))
        state += 1
    if (created and key % 7 == 0) or (not created and key % 5 == 0):
        lines.append(_line(key, "d", _customer(key, state), None, lsn + len(lines)))
        lines.append(_tombstone(key, lsn + len(lines)))
    return lines


def _customer(key: int, version: int) -> dict:
    return {
        "id": key,
        "name": f"Customer {key}",
        "email": f"customer{key}.v{version}@example.com",
        "bio": f"Customer {key}, revision {version}: " + "x" * (key % 40),
    }


_ENVELOPE_JSON = json.dumps(_ENVELOPE, separators=(",", ":"))
_KEY_JSON = json.dumps(_KEY, separators=(",", ":"))


def _key_text(key: int) -> str:
    return '{"schema":' + _KEY_JSON + ',"payload":{"id":' + str(key) + "}}"


def _line(key: int, op: str, before: dict | None, after: dict | None, lsn: int) -> str:
    source = {"version": "3.6.1.Final", "connector": "postgresql", "db": "shop", "schema": "public",
              "table": "customers", "lsn": lsn, "ts_ms": 1_714_564_900_000 + lsn}  # fmt: skip
    payload = {"before": before, "after": after, "source": source, "op": op, "ts_ms": 1_714_564_900_007 + lsn}
    value = '{"schema":' + _ENVELOPE_JSON + ',"payload":' + json.dumps(payload, separators=(",", ":")) + "}"
    return _record(key, value, lsn)


def _tombstone(key: int, lsn: int) -> str:
    return _record(key, None, lsn)


def _record(key: int, value: str | None, offset: int) -> str:
    record = {"topic": _TOPIC, "partition": 0, "offset": offset, "key": _key_text(key), "value": value}
    return json.dumps(record, separators=(",", ":")) + "\n"


#: The pipeline of ours, after examples/cdc/debezium-to-delta.properties (without its extra fields and mask).
PROPERTIES = {
    "source": "file",
    "source.format": "jsonl",
    "key.converter": "json",
    "value.converter": "json",
    "transforms": "unwrap",
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    "transforms.unwrap.delete.tombstone.handling.mode": "rewrite",
    "sink": "table",
    "sink.write.mode": "upsert",
    "sink.delete.field": "__deleted",
}


def run_ours(spark: Any, source: str, tables: Tables, table: str) -> None:
    from smt.pipeline import PipelineSpec, run_pipeline

    spec = PipelineSpec.from_properties({**PROPERTIES, "source.path": source, **tables.sink(table)})
    for key, value in spec.spark_conf().items():
        if key.startswith("spark.sql.execution"):
            spark.conf.set(key, value)
    run_pipeline(spec, spark=spark)


def run_handwritten(spark: Any, source: str, tables: Tables, table: str) -> None:
    tables.merge_changes(spark, latest_changes(spark, source), table)


def latest_changes(spark: Any, source: str) -> Any:
    """The hand-written unwrap: each key's latest change, as a row of :data:`COLUMNS`."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    lines = spark.read.text(source).select(F.from_json("value", "struct<value:string>").alias("r"))
    events = lines.where("r.value IS NOT NULL").select(F.from_json("r.value", _ENVELOPE_DDL).alias("e"))
    events = events.select("e.payload.*")
    deleted = F.col("op") == "d"
    rows = events.select(
        F.when(deleted, F.col("before")).otherwise(F.col("after")).alias("row"),
        F.when(deleted, "true").otherwise("false").alias("__deleted"),
        F.col("source.lsn").alias("lsn"),
    ).select("row.*", "__deleted", "lsn")
    latest = Window.partitionBy("id").orderBy(F.col("lsn").desc())
    return rows.withColumn("n", F.row_number().over(latest)).where("n = 1").drop("n", "lsn")


if __name__ == "__main__":  # pragma: no cover
    from smt.benchmarks.runner import comparison_table, console

    console().print(comparison_table(run(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)))
