"""Latency: how long a record takes through a streaming pipeline, ours against hand-written PySpark.

Starts the local broker of :mod:`smt.local.kafka` and, at each rate of
:data:`RATES` (records/s), runs one streaming query after the other on it,
in one SparkSession, each from a fresh input topic to a fresh output:

- ours, at least once: ``source=kafka`` → ``MaskField$Value`` (``email``) +
  ``InsertField$Value`` (a static field) between schemaless JSON
  converters → ``sink=kafka``, default trigger;
- ours, exactly once (``sink.delivery.guarantee=exactly_once``);
- the hand-written job: ``readStream`` kafka, ``from_json``, the same mask
  and static field, ``to_json``, Spark's Kafka sink, default trigger;
- ours in the JVM (:mod:`smt.pipeline.jvm_stream`): the same chain with
  ``sink.writer=spark`` (the records then never leave the JVM), default
  trigger and Spark's real-time mode (``streaming.trigger=realTime``),
  against the hand-written job above;
- ours in the JVM, values passed through as bytes and ``InsertHeader``
  (``sink.writer=spark``), default trigger and real-time mode, against the
  hand-written job that adds the same header (their ratios are to it);
- Kafka → table: ours into a Parquet folder and a Delta table (at the
  middle rate; Delta where it has a release for the running Spark, see
  :mod:`connectors.table.jars`).

A first, untimed run of the hand-written job warms the session's JVM (its first query runs its code
cold: measured, a job timed first came out 30% slower than the same job timed later).  While a query
runs, a probe process (:mod:`smt.benchmarks.latency_probe`)
sends records stamped with their send time, at the rate, and reads the
output: a record's latency is from its send until the probe sees it (read
committed from the topic; a table's file once committed).  After a warm-up
(:data:`WARMUP_S`) it takes :data:`MEASURE_S` seconds of records; the table
gives p50, p90, p99 and max.  ``scale`` multiplies both durations;
``python -m smt.benchmarks.latency [scale]`` prints the table.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import threading
from typing import Callable, Sequence

from smt.benchmarks.kafka import _local_broker, _Topics
from smt.local.spark_session import local_spark

RATES = (100, 1_000, 10_000)
WARMUP_S = 10.0
MEASURE_S = 20.0
#: How long the probe waits, after sending, for the records still on their way.
DRAIN_S = 30.0
#: The rate of the table rows.
TABLE_RATE = 1_000
#: Targets against the hand-written job at 1,000 records/s: p50 and p99 at least once, p99 exactly once.
AT_LEAST_ONCE_TARGET = 1.0
EXACTLY_ONCE_TARGET = 1.5

OURS = "smt, at least once"
OURS_EOS = "smt, exactly once"
HANDWRITTEN = "hand-written PySpark"
#: The rows of a chain that keeps its records in the JVM (smt.pipeline.jvm_stream), and their baseline.
OURS_JVM_JSON = "smt in the JVM (sink.writer=spark)"
OURS_JVM_JSON_REAL_TIME = "smt in the JVM (sink.writer=spark), realTime"
OURS_JVM = "smt in the JVM, bytes"
OURS_REAL_TIME = "smt in the JVM, bytes, realTime"
HANDWRITTEN_BYTES = "hand-written PySpark, bytes"

TRANSFORMS = {
    "transforms": "mask,static",
    "transforms.mask.type": "MaskField$Value",
    "transforms.mask.fields": "email",
    "transforms.static.type": "InsertField$Value",
    "transforms.static.static.field": "source",
    "transforms.static.static.value": "bench",
}
JSON_CONVERTERS = {
    "key.converter": "json", "key.converter.schemas.enable": "false",
    "value.converter": "json", "value.converter.schemas.enable": "false",
}  # fmt: skip
VALUE_DDL = "id BIGINT, user STRING, email STRING, sent_us BIGINT, source STRING"
#: The chain of the issue's example: schemaless JSON, a field masked, a static field.
CHAIN = {**JSON_CONVERTERS, **TRANSFORMS}
#: The JVM rows' chain: values passed through as bytes, a header added (bytearray converters, Spark's writer).
JVM_CHAIN = {
    "key.converter": "bytearray", "value.converter": "bytearray", "header.converter": "string",
    "transforms": "tag", "transforms.tag.type": "InsertHeader",
    "transforms.tag.header": "source", "transforms.tag.value.literal": "bench",
}  # fmt: skip
JVM_SETTINGS = {"sink.writer": "spark"}
REAL_TIME_SETTINGS = {**JVM_SETTINGS, "streaming.trigger": "realTime"}


@dataclasses.dataclass(frozen=True)
class Latency:
    """The latencies (ms, sorted) of one job at one rate; ``expected`` records were sent after the warm-up."""

    name: str
    job: str
    rate: int
    latencies_ms: tuple[float, ...]
    expected: int
    #: The job its ratios are taken against, at the same rate.
    baseline: str = HANDWRITTEN

    def percentile(self, p: float) -> float:
        if not self.latencies_ms:
            return float("nan")
        return self.latencies_ms[min(len(self.latencies_ms) - 1, int(p / 100 * len(self.latencies_ms)))]

    @property
    def received(self) -> int:
        return len(self.latencies_ms)


def run(scale: float = 1.0, rates: Sequence[int] = RATES) -> list[Latency]:
    timing = _Timing(WARMUP_S * scale, MEASURE_S * scale, DRAIN_S)
    rows: list[Latency] = []
    with _local_broker() as servers, tempfile.TemporaryDirectory(prefix="smt-bench-latency-") as work:
        formats = _table_formats()
        spark = _session(formats)
        topics = _Topics(spark, servers)
        bench = _Bench(spark, topics, work, _Timing(WARMUP_S * scale, 1.0, DRAIN_S))
        bench.handwritten(rates[0])  # untimed: warms the JVM
        bench.timing = timing
        for rate in rates:
            rows.append(bench.ours(rate, OURS))
            rows.append(bench.ours(rate, OURS_EOS, _exactly_once(rate)))
            rows.append(bench.handwritten(rate))
            rows.append(bench.ours(rate, OURS_JVM_JSON, JVM_SETTINGS))
            rows.append(bench.ours(rate, OURS_JVM_JSON_REAL_TIME, REAL_TIME_SETTINGS))
            rows.append(bench.ours(rate, OURS_JVM, JVM_SETTINGS, HANDWRITTEN_BYTES, JVM_CHAIN))
            rows.append(bench.ours(rate, OURS_REAL_TIME, REAL_TIME_SETTINGS, HANDWRITTEN_BYTES, JVM_CHAIN))
            rows.append(bench.handwritten(rate, HANDWRITTEN_BYTES, _handwritten_bytes_query))
        table_rate = TABLE_RATE if TABLE_RATE in rates else rates[0]
        rows += [bench.table(table_rate, fmt) for fmt in formats]
    return rows


def _table_formats() -> list[str]:
    """Parquet, and Delta where it has a release for the running Spark (else a note says why not)."""
    from connectors.table.jars import UnsupportedSparkError, format_bundle

    try:
        format_bundle("delta")
    except UnsupportedSparkError as exc:
        print(f"latency benchmark: no Delta row: {exc}", file=sys.stderr)
        return ["parquet"]
    return ["parquet", "delta"]


def _session(formats: list[str]):
    """The Kafka benchmark's session, with each table format's jars and session settings."""
    from connectors.kafka import spark_jars
    from connectors.table.jars import formats_spark_conf

    conf = formats_spark_conf(formats, "sink.")
    conf["spark.jars"] = ",".join([*spark_jars(), *filter(None, [conf.get("spark.jars")])])
    session = local_spark("smt-bench-latency", conf)
    session.sparkContext.setLogLevel("ERROR")
    return session


def _exactly_once(rate: int) -> dict[str, str]:
    return {"sink.delivery.guarantee": "exactly_once", "sink.transactional.id.prefix": f"smt-latency-{rate}"}


@dataclasses.dataclass(frozen=True)
class _Timing:
    warmup_s: float
    measure_s: float
    drain_s: float


class _Bench:
    """Runs each job against the probe, on fresh topics of one broker."""

    def __init__(self, spark, topics: _Topics, work: str, timing: _Timing) -> None:
        self.spark, self.topics, self.work, self.timing = spark, topics, work, timing
        self._runs = 0

    def ours(
        self, rate: int, job: str, extra: dict[str, str] | None = None, baseline: str = HANDWRITTEN, chain=CHAIN
    ) -> Latency:
        source, output = self._topics()
        settings = {**chain, "sink": "kafka", "sink.kafka.bootstrap.servers": self.topics.servers,
                    "sink.topic": output, **(extra or {})}  # fmt: skip
        timed = self._timed(job, rate, source, {"output": output}, lambda: self._pipeline(source, settings))
        return dataclasses.replace(timed, baseline=baseline)

    def table(self, rate: int, table_format: str) -> Latency:
        source, _ = self._topics()
        path = os.path.join(self.work, f"table-{self._runs}")
        settings = {**CHAIN, "sink": "table", "sink.format": table_format, "sink.path": path,
                    "sink.value.schema": VALUE_DDL}  # fmt: skip
        probe = {"table_path": path, "table_format": table_format}
        return self._timed(f"smt → {table_format} table", rate, source, probe, lambda: self._pipeline(source, settings))

    def handwritten(self, rate: int, job: str = HANDWRITTEN, query: Callable | None = None) -> Latency:
        source, output = self._topics()
        query = query or _handwritten_query

        def start():
            started = query(self.spark, self.topics.servers, source, output, self._checkpoint())
            return started.stop, started.awaitTermination

        return dataclasses.replace(self._timed(job, rate, source, {"output": output}, start), baseline=job)

    def _topics(self) -> tuple[str, str]:
        self._runs += 1
        return tuple(self.topics.create(f"latency-in-{self._runs}", f"latency-out-{self._runs}"))

    def _checkpoint(self) -> str:
        return os.path.join(self.work, f"checkpoint-{self._runs}")

    def _pipeline(self, source: str, settings: dict[str, str]):
        """Our streaming pipeline in a thread; (stop, wait) for it."""
        from smt.pipeline import PipelineSpec, run_pipeline

        name = f"smt-latency-{self._runs}"
        spec = PipelineSpec.from_properties({
            "name": name, "mode": "streaming", "checkpoint.location": self._checkpoint(),
            "source": "kafka", "source.kafka.bootstrap.servers": self.topics.servers, "source.topics": source,
            **settings})  # fmt: skip
        for key, value in spec.spark_conf().items():
            # A static one (a table format's extensions) is the session's already (see _session).
            if key.startswith("spark.sql.") and self.spark.conf.isModifiable(key):
                self.spark.conf.set(key, value)
        failure: list[BaseException] = []

        def target() -> None:
            try:
                run_pipeline(spec, spark=self.spark)
            except BaseException as exc:  # handed to the bench's thread
                failure.append(exc)

        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()

        def stop() -> None:
            for query in self.spark.streams.active:
                if query.name == name:
                    query.stop()

        def wait() -> None:
            thread.join()
            if failure:
                raise failure[0]

        return stop, wait

    def _timed(self, job: str, rate: int, source: str, output: dict, start: Callable) -> Latency:
        stop, wait = start()
        try:
            result = _probe({
                "servers": self.topics.servers, "input": source, "rate": rate, "warmup_s": self.timing.warmup_s,
                "measure_s": self.timing.measure_s, "drain_s": self.timing.drain_s, **output})  # fmt: skip
        finally:
            stop()
            wait()
        return Latency(job, job, rate, tuple(result["latencies_ms"]), result["expected"])


def _probe(spec: dict) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "smt.benchmarks.latency_probe", json.dumps(spec)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the latency probe failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _handwritten_query(spark, servers: str, source: str, output: str, checkpoint: str):
    """The job a Spark user would write for the same chain: from_json, mask, static field, to_json."""
    from pyspark.sql import functions as F

    value = F.from_json(F.col("value").cast("string"), "id BIGINT, user STRING, email STRING, sent_us BIGINT")
    parsed = _read_stream(spark, servers, source).load().select(value.alias("v"))
    record = F.struct(
        F.col("v.id").alias("id"),
        F.col("v.user").alias("user"),
        F.when(F.col("v.email").isNotNull(), F.lit("")).alias("email"),
        F.col("v.sent_us").alias("sent_us"),
        F.lit("bench").alias("source"),
    )
    return _write_stream(parsed.select(F.to_json(record).alias("value")), servers, output, checkpoint)


def _handwritten_bytes_query(spark, servers: str, source: str, output: str, checkpoint: str):
    """The job a Spark user would write for the JVM rows' chain: the value as read, one header added."""
    from pyspark.sql import functions as F

    records = _read_stream(spark, servers, source).option("includeHeaders", "true").load()
    tag = F.array(F.struct(F.lit("source").alias("key"), F.lit(b"bench").alias("value")))
    headers = F.concat(F.coalesce(F.col("headers"), F.array().cast("array<struct<key:string,value:binary>>")), tag)
    return _write_stream(records.select("key", "value", headers.alias("headers")), servers, output, checkpoint)


def _read_stream(spark, servers: str, source: str):
    """The hand-written jobs' Kafka source, from the topic's start (not loaded: options may follow)."""
    reader = spark.readStream.format("kafka").option("kafka.bootstrap.servers", servers)
    return reader.option("subscribe", source).option("startingOffsets", "earliest")


def _write_stream(df, servers: str, output: str, checkpoint: str):
    """The hand-written jobs' Kafka sink, started (default trigger)."""
    writer = df.writeStream.format("kafka").option("kafka.bootstrap.servers", servers).option("topic", output)
    return writer.option("checkpointLocation", checkpoint).start()


# --- the table ----------------------------------------------------------------------------


def latency_table(rows: Sequence[Latency]):
    """One line per job and rate, with its ratios to the hand-written job at the same rate."""
    from rich.table import Table

    table = Table(title="smt latency (ms from send until read at the output; one run, one broker)")
    for column in ("records/s", "job", "received", "p50", "p90", "p99", "max", "p50 / hw", "p99 / hw", "target"):
        table.add_column(column, justify="left" if column == "job" else "right")
    baselines = {(row.rate, row.job): row for row in rows if row.baseline == row.job}
    for row in rows:
        hw = baselines.get((row.rate, row.baseline))
        ratios = ("", "") if hw is None or row is hw else (
            _ratio(row.percentile(50), hw.percentile(50)), _ratio(row.percentile(99), hw.percentile(99)))  # fmt: skip
        table.add_row(
            f"{row.rate:,}", row.job, f"{row.received:,}/{row.expected:,}",
            *(f"{row.percentile(p):,.0f}" for p in (50, 90, 99, 100)), *ratios, _target(row, hw),
        )  # fmt: skip
    return table


def _ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}×" if theirs > 0 else ""


def _target(row: Latency, hw: Latency | None) -> str:
    if hw is None or row.rate != 1_000 or row.job not in (OURS, OURS_EOS, OURS_JVM_JSON, OURS_JVM_JSON_REAL_TIME):
        return ""
    if row.job != OURS_EOS:
        met = row.percentile(50) <= AT_LEAST_ONCE_TARGET * hw.percentile(50) and row.percentile(
            99
        ) <= AT_LEAST_ONCE_TARGET * hw.percentile(99)
        return f"p50, p99 ≤ {AT_LEAST_ONCE_TARGET:g}× {'✓' if met else '✗'}"
    met = row.percentile(99) <= EXACTLY_ONCE_TARGET * hw.percentile(99)
    return f"p99 ≤ {EXACTLY_ONCE_TARGET:g}× {'✓' if met else '✗'}"


if __name__ == "__main__":  # pragma: no cover
    from smt.benchmarks.runner import console

    console().print(latency_table(run(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)))
