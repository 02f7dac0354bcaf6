"""Built-in SMTs: InsertField + MaskField + ReplaceField + TimestampRouter over schemaless records.

Two rows:

* ``builtins: SMT chain`` — the four SMTs only, per batch (``apply_batch``) against a per-record
  ``apply`` loop over the same Python dicts (informational: shows what the batch paths save).
* ``builtins: pipeline`` — text files of ~200-byte JSON values through our pipeline
  (``source=file``, JSON converters, the chain, ``sink=noop`` producing key, value and topic)
  against the same logic written by hand in Spark SQL (``spark.read.text`` → ``from_json`` →
  struct ops → ``to_json``, the same fields to Spark's ``noop`` format), both on ``local[2]``.
  Target: at least 1.0× the Spark SQL version.

Run with ``python -m smt.benchmarks.builtins``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import tempfile

from smt.benchmarks._common import Comparison, RaiseErrors, alternating
from smt.local.spark_session import local_spark

#: The chain, as a Kafka Connect properties file would give it.
CHAIN_PROPERTIES = {
    "transforms": "insert,mask,replace,route",
    "transforms.insert.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.insert.topic.field": "source_topic",
    "transforms.insert.partition.field": "source_partition",
    "transforms.mask.type": "MaskField$Value",
    "transforms.mask.fields": "ssn,card",
    "transforms.replace.type": "ReplaceField$Value",
    "transforms.replace.exclude": "internal",
    "transforms.replace.renames": "name:customer_name",
    "transforms.route.type": "TimestampRouter",
    "transforms.route.timestamp.format": "yyyyMMdd",
}
_BASE_MILLIS = 1_483_425_001_864


def sample_value(i: int, rng: random.Random) -> dict:
    """One record value; its JSON is about 200 bytes."""
    return {
        "id": i,
        "name": f"customer-{rng.randrange(10**6):06d}",
        "email": f"user{i}@example.com",
        "ssn": f"{rng.randrange(10**9):09d}",
        "card": f"{rng.randrange(10**16):016d}",
        "amount": round(rng.random() * 1000, 2),
        "internal": {"shard": i % 16, "trace": f"{rng.getrandbits(48):012x}"},
        "active": bool(i % 2),
    }


def _chain():
    from smt.chain import TransformChain

    return TransformChain.from_properties(CHAIN_PROPERTIES)


def smt_chain_comparison(records: int) -> Comparison:
    """The four SMTs per batch vs per record, over the same schemaless dicts."""
    from smt.batch import RecordBatch
    from smt.record import Record

    rng = random.Random(7)
    values = [sample_value(i, rng) for i in range(records)]
    source = [
        Record(topic="orders", partition=i % 4, offset=i, timestamp=_BASE_MILLIS + i * 1000, value=v)
        for i, v in enumerate(values)
    ]
    chain = _chain()
    transforms = [stage.transform for stage in chain.stages]
    batch_size = 10_000

    # Batches are built once: the SMTs never modify their input batch or its values.
    batches = [RecordBatch.from_records(source[start : start + batch_size]) for start in range(0, records, batch_size)]

    def per_batch():
        for batch in batches:
            for transform in transforms:
                batch = transform.apply_batch(batch, RaiseErrors())

    def per_record():
        for record in source:
            for transform in transforms:
                record = transform.apply(record)

    return alternating(
        "builtins: 4-SMT chain (SMTs only)", records, ("apply_batch", per_batch), ("apply per record", per_record)
    )


# --- the pipeline row -----------------------------------------------------------------

#: What both pipeline jobs produce: the fields a Kafka sink writes (headers are empty here).
_OUTPUT_FIELDS = ("key", "value", "topic")


def json_values(spark, records: int, partitions: int = 2):
    """A DataFrame of ``records`` ~200-byte JSON values, the shape of :func:`sample_value`.

    The lines are generated in the JVM, so building a million of them takes
    seconds, not minutes.
    """
    from pyspark.sql import functions as F

    value = F.to_json(
        F.struct(
            F.col("id"),
            F.concat(F.lit("customer-"), F.lpad((F.col("id") * 7919 % 1_000_000).cast("string"), 6, "0")).alias("name"),
            F.concat(F.lit("user"), F.col("id"), F.lit("@example.com")).alias("email"),
            F.lpad((F.col("id") * 104_729 % 1_000_000_000).cast("string"), 9, "0").alias("ssn"),
            F.lpad((F.col("id") * 15_485_863 % 10**16).cast("string"), 16, "0").alias("card"),
            F.round(F.rand(7) * 1000, 2).alias("amount"),
            F.struct(
                (F.col("id") % 16).cast("int").alias("shard"),
                F.substring(F.sha1(F.col("id").cast("string")), 1, 12).alias("trace"),
            ).alias("internal"),
            (F.col("id") % 2 == 1).alias("active"),
        )
    )
    return spark.range(records, numPartitions=partitions).select(value.alias("value"))


def spark_sql_chain(lines, topic: str):
    """The same four SMTs hand-written in Spark SQL over text lines: from_json → struct ops → to_json.

    Records read from text files have the source's topic, partition 0 and the
    read time as timestamp, as our text source gives them.
    """
    from pyspark.sql import functions as F

    return spark_sql_chain_of(lines, F.lit(topic), F.lit(0), F.current_timestamp())


def spark_sql_chain_of(records, topic, partition, timestamp):
    """The four SMTs in Spark SQL over ``records``' ``value`` column, given each record's
    ``topic``, ``partition`` and ``timestamp`` as columns: key, value and topic out."""
    from pyspark.sql import functions as F

    schema = (
        "id long, name string, email string, ssn string, card string, amount double, "
        "internal struct<shard:int,trace:string>, active boolean"
    )
    parsed = records.select(
        F.from_json(F.col("value").cast("string"), schema).alias("v"),
        topic.alias("_topic"),
        partition.alias("_partition"),
        timestamp.alias("_timestamp"),
    )
    value = F.struct(
        F.col("v.id").alias("id"),
        F.col("v.name").alias("customer_name"),
        F.col("v.email").alias("email"),
        F.when(F.col("v.ssn").isNotNull(), F.lit("")).alias("ssn"),
        F.when(F.col("v.card").isNotNull(), F.lit("")).alias("card"),
        F.col("v.amount").alias("amount"),
        F.col("v.active").alias("active"),
        F.col("_topic").alias("source_topic"),
        F.col("_partition").alias("source_partition"),
    )
    return parsed.select(
        F.lit(None).cast("binary").alias("key"),
        F.to_json(value).cast("binary").alias("value"),
        F.concat(F.col("_topic"), F.lit("-"), F.date_format(F.col("_timestamp"), "yyyyMMdd")).alias("topic"),
    )


def _pipeline_spec(source: str, topic: str, sink: dict[str, str]):
    from smt.pipeline import PipelineSpec

    return PipelineSpec.from_properties(
        {
            "source": "file",
            "source.path": source,
            "source.format": "text",
            "source.topic": topic,
            "key.converter": "json",
            "key.converter.schemas.enable": "false",
            "value.converter": "json",
            "value.converter.schemas.enable": "false",
            **CHAIN_PROPERTIES,
            **sink,
        }
    )


def check_same_records(spark, source: str, topic: str, out: str) -> None:
    """Both jobs must produce the same records (JSON compared as objects), or the race is void."""
    from smt.pipeline import run_pipeline

    run_pipeline(_pipeline_spec(source, topic, {"sink": "file", "sink.path": out, "sink.format": "jsonl"}), spark=spark)
    mine = sorted(
        (r["topic"], json.dumps(json.loads(r["value"]), sort_keys=True)) for r in spark.read.json(out).collect()
    )
    theirs = sorted(
        (r["topic"], json.dumps(json.loads(bytes(r["value"])), sort_keys=True))
        for r in spark_sql_chain(spark.read.text(source), topic).collect()
    )
    if mine != theirs:
        raise AssertionError(f"the two jobs differ: {mine[:2]} vs {theirs[:2]}")


def _spark_session():
    return local_spark("smt-bench-builtins", {"spark.sql.execution.arrow.maxRecordsPerBatch": "10000"})


def pipeline_comparison(records: int, spark=None) -> Comparison:
    """Text files of JSON values → the chain → discarded, our pipeline against Spark SQL."""
    from smt.pipeline import run_pipeline

    spark = spark or _spark_session()
    topic = "orders"
    work = tempfile.mkdtemp(prefix="smt-bench-builtins-")
    try:
        source = os.path.join(work, topic)
        json_values(spark, records).write.text(source)
        check = os.path.join(work, "check")
        json_values(spark, 500, partitions=1).write.text(check)
        check_same_records(spark, check, topic, os.path.join(work, "check-out"))
        spec = _pipeline_spec(source, topic, {"sink": "noop", "sink.fields": ",".join(_OUTPUT_FIELDS)})

        def ours():
            written = run_pipeline(spec, spark=spark).counts.written
            if written != records:
                raise RuntimeError(f"pipeline wrote {written} of {records} records")

        def spark_sql():
            spark_sql_chain(spark.read.text(source), topic).write.format("noop").mode("overwrite").save()

        ours()  # warm up the Python workers
        spark_sql()
        return alternating(
            "builtins: 4-SMT chain on ~200-byte JSON, files → noop",
            records,
            ("smt pipeline", ours),
            ("hand-written Spark SQL", spark_sql),
            target=1.0,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(scale: float = 1.0) -> list[Comparison]:
    comparisons = [smt_chain_comparison(max(1000, int(200_000 * scale)))]
    comparisons.append(pipeline_comparison(max(1000, int(1_000_000 * scale))))
    return comparisons


def main(argv: list[str]) -> None:
    scale = float(argv[1]) if len(argv) > 1 else 1.0
    for c in run(scale):
        print(
            f"{c.name}: {c.ours.label} {c.ours.records_per_second:,.0f} rec/s; "
            f"{c.baseline.label} {c.baseline.records_per_second:,.0f} rec/s; ratio {c.ratio:.2f}x"
            + ("" if c.target_ratio is None else f" (target >= {c.target_ratio:g}x)")
        )


if __name__ == "__main__":
    main(sys.argv)
