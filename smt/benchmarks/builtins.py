"""Built-in SMTs: InsertField + MaskField + ReplaceField + TimestampRouter over schemaless records.

Two rows:

* ``builtins: SMT chain`` — the four SMTs only, per batch (``apply_batch``) against a per-record
  ``apply`` loop over the same Python dicts (informational: shows what the batch paths save).
* ``builtins: pipeline`` — ~200-byte JSON lines through our pipeline processor on Spark
  (``mapInArrow``: JSON converter, the chain, JSON converter) against the same logic written by
  hand in Spark SQL (``from_json`` → struct ops → ``to_json``), both on ``local[2]``.
  Target: at least 1.0× the Spark SQL version.

Run with ``python -m smt.benchmarks.builtins``.
"""

from __future__ import annotations

import json
import os
import random
import sys

from smt.benchmarks._common import Comparison, Measurement, measure

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


def _alternating(name: str, records: int, ours: tuple, baseline: tuple, target: float | None = None,
                 rounds: int = 3) -> Comparison:
    """Best of ``rounds`` for each path, measured alternately so both see the same machine load."""
    best: dict[str, Measurement] = {}
    for _ in range(rounds):
        for label, work in (ours, baseline):
            result = measure(label, records, work)
            if label not in best or result.seconds < best[label].seconds:
                best[label] = result
    return Comparison(name, best[ours[0]], best[baseline[0]], target)


def _chain():
    from smt.chain import TransformChain

    return TransformChain.from_properties(CHAIN_PROPERTIES)


def smt_chain_comparison(records: int) -> Comparison:
    """The four SMTs per batch vs per record, over the same schemaless dicts."""
    from smt.batch import RecordBatch
    from smt.record import Record

    rng = random.Random(7)
    values = [sample_value(i, rng) for i in range(records)]
    source = [Record(topic="orders", partition=i % 4, offset=i, timestamp=_BASE_MILLIS + i * 1000, value=v)
              for i, v in enumerate(values)]
    chain = _chain()
    transforms = [stage.transform for stage in chain.stages]
    batch_size = 10_000

    class _Raise:
        def fail(self, row, exc):
            raise exc

    # Batches are built once: the SMTs never modify their input batch or its values.
    batches = [RecordBatch.from_records(source[start:start + batch_size])
               for start in range(0, records, batch_size)]

    def per_batch():
        for batch in batches:
            for transform in transforms:
                batch = transform.apply_batch(batch, _Raise())

    def per_record():
        for record in source:
            for transform in transforms:
                record = transform.apply(record)

    return _alternating("builtins: 4-SMT chain (SMTs only)", records,
                        ("apply_batch", per_batch), ("apply per record", per_record))


# --- the pipeline row -----------------------------------------------------------------


def json_lines_dataframe(spark, records: int, partitions: int = 2):
    """A cached DataFrame in Kafka row layout whose values are ~200-byte JSON lines.

    The lines are generated in the JVM (the same shape as :func:`sample_value`), so building a
    million of them takes seconds, not minutes.
    """
    from pyspark.sql import functions as F

    value = F.to_json(F.struct(
        F.col("id"),
        F.concat(F.lit("customer-"), F.lpad((F.col("id") * 7919 % 1_000_000).cast("string"), 6, "0")).alias("name"),
        F.concat(F.lit("user"), F.col("id"), F.lit("@example.com")).alias("email"),
        F.lpad((F.col("id") * 104_729 % 1_000_000_000).cast("string"), 9, "0").alias("ssn"),
        F.lpad((F.col("id") * 15_485_863 % 10**16).cast("string"), 16, "0").alias("card"),
        F.round(F.rand(7) * 1000, 2).alias("amount"),
        F.struct((F.col("id") % 16).cast("int").alias("shard"),
                 F.substring(F.sha1(F.col("id").cast("string")), 1, 12).alias("trace")).alias("internal"),
        (F.col("id") % 2 == 1).alias("active"),
    ))
    df = spark.range(records, numPartitions=partitions).select(
        F.lit(None).cast("binary").alias("key"),
        value.cast("binary").alias("value"),
        F.lit("orders").alias("topic"),
        (F.col("id") % 4).cast("int").alias("partition"),
        F.col("id").alias("offset"),
        F.timestamp_millis(F.lit(_BASE_MILLIS) + F.col("id") * 1000).alias("timestamp"),
        F.lit(0).alias("timestampType"),
        F.expr("cast(array() as array<struct<key:string,value:binary>>)").alias("headers"),
    )
    return df.cache()


def spark_sql_chain(df):
    """The same four SMTs hand-written in Spark SQL: from_json → struct ops → to_json."""
    from pyspark.sql import functions as F

    schema = ("id long, name string, email string, ssn string, card string, amount double, "
              "internal struct<shard:int,trace:string>, active boolean")
    parsed = df.withColumn("v", F.from_json(F.col("value").cast("string"), schema))
    value = F.struct(
        F.col("v.id").alias("id"),
        F.col("v.name").alias("customer_name"),
        F.col("v.email").alias("email"),
        F.when(F.col("v.ssn").isNotNull(), F.lit("")).alias("ssn"),
        F.when(F.col("v.card").isNotNull(), F.lit("")).alias("card"),
        F.col("v.amount").alias("amount"),
        F.col("v.active").alias("active"),
        F.col("topic").alias("source_topic"),
        F.col("partition").alias("source_partition"),
    )
    return parsed.select(
        F.col("key"),
        F.to_json(value).cast("binary").alias("value"),
        F.concat(F.col("topic"), F.lit("-"),
                 F.date_format(F.col("timestamp"), "yyyyMMdd")).alias("topic"),
        "partition", "offset", "timestamp", "timestampType", "headers",
    )


def check_same_records(ours, baseline, rows: int = 200) -> None:
    """Both paths must produce the same records (JSON compared as objects), or the race is void."""
    mine = {r.offset: r for r in ours.where(f"offset < {rows}").collect()}
    theirs = {r.offset: r for r in baseline.where(f"offset < {rows}").collect()}
    assert mine.keys() == theirs.keys(), "the two paths kept different records"
    for offset, row in mine.items():
        other = theirs[offset]
        if row.topic != other.topic or json.loads(row.value) != json.loads(other.value):
            raise AssertionError(f"record {offset} differs: {row.topic} {row.value!r} vs {other.topic} {other.value!r}")


def _processor():
    from converters.json.converter import JsonConverter
    from smt.error_handling import ErrorPolicy
    from smt.pipeline.processor import BatchProcessor

    converters = []
    for is_key in (True, False):
        converter = JsonConverter()
        converter.configure({"schemas.enable": "false"}, is_key=is_key)
        converters.append(converter)
    header = JsonConverter()
    header.configure({"schemas.enable": "false"}, is_key=False)
    return BatchProcessor(_chain(), converters[0], converters[1], header, ErrorPolicy())


def _spark_session():
    from pyspark.sql import SparkSession

    # Local workers must run this interpreter (and its packages), as the pipeline runner does.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return (SparkSession.builder.master("local[2]").appName("smt-bench-builtins")
            .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
            .config("spark.sql.execution.arrow.maxRecordsPerBatch", "10000")
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate())


def pipeline_comparison(records: int, spark=None) -> Comparison:
    from smt.pipeline.runner import transform_dataframe

    spark = spark or _spark_session()
    df = json_lines_dataframe(spark, records)
    df.count()
    processor = _processor()

    def ours():
        transform_dataframe(df, processor).write.format("noop").mode("overwrite").save()

    def spark_sql():
        spark_sql_chain(df).write.format("noop").mode("overwrite").save()

    check_same_records(transform_dataframe(df, processor).drop("_smt_dead_letter"), spark_sql_chain(df))
    ours()  # warm up the Python workers
    spark_sql()
    try:
        return _alternating("builtins: 4-SMT chain on ~200-byte JSON", records,
                            ("pipeline (mapInArrow)", ours), ("hand-written Spark SQL", spark_sql), target=1.0)
    finally:
        df.unpersist()


def run(scale: float = 1.0) -> list[Comparison]:
    comparisons = [smt_chain_comparison(max(1000, int(200_000 * scale)))]
    comparisons.append(pipeline_comparison(max(1000, int(1_000_000 * scale))))
    return comparisons


def main(argv: list[str]) -> None:
    scale = float(argv[1]) if len(argv) > 1 else 1.0
    for c in run(scale):
        print(f"{c.name}: {c.ours.label} {c.ours.records_per_second:,.0f} rec/s; "
              f"{c.baseline.label} {c.baseline.records_per_second:,.0f} rec/s; ratio {c.ratio:.2f}x"
              + ("" if c.target_ratio is None else f" (target >= {c.target_ratio:g}x)"))


if __name__ == "__main__":
    main(sys.argv)
