"""Tables benchmark: JSON orders (schema envelope) → MaskField + ReplaceField → a table, against hand-written PySpark.

Writes ``1_000_000 × scale`` orders once as text (one JsonConverter envelope
per line), then, in the same SparkSession, for each table format this Spark
can write (Parquet always; Delta and Iceberg where Maven Central has their
jars for it, see :mod:`connectors.table.jars`; Iceberg tables by name, in a
Hadoop catalog in the benchmark's temporary folder):

- ours: ``file(text) → json → MaskField(email) + ReplaceField(exclude secret) → table``;
- baseline: ``spark.read.text → from_json`` with the payload's schema, the
  same masking in SQL, ``write.format(...)`` (Iceberg: ``writeTo``, created
  then overwritten, as the table sink does).

The target is ours ≥ 0.8× the baseline's records/s.  ``python -m
smt.benchmarks.tables [scale]`` prints the table.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from typing import Any

from smt.benchmarks._common import Comparison, alternating
from smt.local.spark_session import local_spark

RECORDS = 1_000_000
TARGET_RATIO = 0.8

_SCHEMA = {
    "type": "struct",
    "optional": False,
    "fields": [
        {"field": "order_id", "type": "int64", "optional": False},
        {"field": "email", "type": "string", "optional": True},
        {"field": "secret", "type": "string", "optional": True},
        {"field": "amount", "type": "double", "optional": True},
        {"field": "country", "type": "string", "optional": True},
        {"field": "placed", "type": "int64", "optional": True, "name": "org.apache.kafka.connect.data.Timestamp"},
    ],
}
_PAYLOAD_DDL = "struct<order_id:bigint,email:string,secret:string,amount:double,country:string,placed:bigint>"


def run(scale: float = 1.0) -> list[Comparison]:
    from connectors.table.jars import UnsupportedSparkError, format_bundle

    records = max(1_000, int(RECORDS * scale))
    formats = ["parquet"]
    for fmt in ("delta", "iceberg"):
        try:
            format_bundle(fmt)
            formats.append(fmt)
        except UnsupportedSparkError as exc:
            print(f"tables benchmark: no {fmt} row: {exc}", file=sys.stderr)
    work = tempfile.mkdtemp(prefix="smt-bench-tables-")
    try:
        spark = _session(formats, work)
        source = os.path.join(work, "in")
        _write_orders(source, records)
        return [
            alternating(
                f"tables: JSON envelope → mask → {fmt}",
                records,
                ("smt, sink=table", lambda fmt=fmt: _run_ours(spark, source, _where(work, "ours", fmt), fmt)),
                (
                    "PySpark from_json",
                    lambda fmt=fmt: _run_handwritten(spark, source, _where(work, "hand", fmt), fmt),
                ),
                TARGET_RATIO,
                rounds=3,
                warmup=1,
            )
            for fmt in formats
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)


#: The Iceberg tables' catalog: a Hadoop catalog in the benchmark's folder.
_CATALOG = "smt_bench"


def _where(work: str, path: str, fmt: str) -> str:
    """Where a path writes ``fmt``: a folder, or for Iceberg a table of the benchmark's catalog."""
    return f"{_CATALOG}.orders.{path}" if fmt == "iceberg" else os.path.join(work, f"{path}-{fmt}")


def _sink_keys(fmt: str, where: str) -> dict[str, str]:
    """The table sink's keys for ``fmt`` at ``where`` (see :func:`_where`)."""
    if fmt == "iceberg":
        return {"sink.format": fmt, "sink.table": where, "sink.table.auto.create": "true"}
    return {"sink.format": fmt, "sink.path": where}


#: Session settings that list classes or jars: the formats' lists are joined.
_LISTS = ("spark.jars", "spark.sql.extensions")


def _session(formats: list[str], work: str) -> Any:
    from smt.pipeline import PipelineSpec

    conf: dict[str, str] = {}
    for fmt in formats:
        spec = PipelineSpec.from_properties(
            {"source": "generator", "sink": "table", **_sink_keys(fmt, _where(work, "unused", fmt))}
        )
        for key, value in spec.spark_conf().items():
            if key in _LISTS and key in conf:  # each format's jars and session extensions, all of them
                conf[key] = f"{conf[key]},{value}"
            elif key != "spark.master":
                conf[key] = value
    if "iceberg" in formats:
        conf[f"spark.sql.catalog.{_CATALOG}"] = "org.apache.iceberg.spark.SparkCatalog"
        conf[f"spark.sql.catalog.{_CATALOG}.type"] = "hadoop"
        conf[f"spark.sql.catalog.{_CATALOG}.warehouse"] = os.path.join(work, "iceberg")
    return local_spark("smt-bench-tables", conf)


def _write_orders(path: str, records: int) -> None:
    os.makedirs(path)
    with open(os.path.join(path, "orders.txt"), "w", encoding="utf-8") as out:
        for i in range(records):
            payload = {
                "order_id": i,
                "email": f"user{i}@example.com",
                "secret": "s3cret",
                "amount": i * 0.25,
                "country": ("NL", "DE", "FR")[i % 3],
                "placed": 1_700_000_000_000 + i,
            }
            out.write(json.dumps({"schema": _SCHEMA, "payload": payload}, separators=(",", ":")) + "\n")


def _run_ours(spark: Any, source: str, table: str, fmt: str) -> None:
    from smt.pipeline import PipelineSpec, run_pipeline

    spec = PipelineSpec.from_properties(
        {
            "source": "file",
            "source.path": source,
            "source.format": "text",
            "value.converter": "json",
            "transforms": "mask,drop",
            "transforms.mask.type": "MaskField$Value",
            "transforms.mask.fields": "email",
            "transforms.drop.type": "ReplaceField$Value",
            "transforms.drop.exclude": "secret",
            "sink": "table",
            **_sink_keys(fmt, table),
            "sink.write.mode": "overwrite",
        }
    )
    for key, value in spec.spark_conf().items():
        if key.startswith("spark.sql.execution"):
            spark.conf.set(key, value)
    run_pipeline(spec, spark=spark)


def _run_handwritten(spark: Any, source: str, table: str, fmt: str) -> None:
    from pyspark.sql import functions as F

    orders = spark.read.text(source).select(F.from_json("value", f"struct<payload:{_PAYLOAD_DDL}>").alias("r"))
    orders = orders.select("r.payload.*").drop("secret")
    orders = orders.withColumn("email", F.lit("")).withColumn("placed", F.timestamp_millis("placed"))
    if fmt != "iceberg":
        orders.write.format(fmt).mode("overwrite").save(table)
    elif spark.catalog.tableExists(table):  # as the table sink writes a catalog table
        orders.writeTo(table).overwrite(F.lit(True))
    else:
        orders.writeTo(table).using("iceberg").create()


if __name__ == "__main__":  # pragma: no cover
    from smt.benchmarks.runner import comparison_table, console

    console().print(comparison_table(run(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)))
