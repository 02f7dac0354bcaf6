"""Kafka → Kafka benchmark: our pipeline against hand-written PySpark, on a local broker.

Starts the local broker of :mod:`smt.local.kafka` (KRaft, loopback, its own
temporary state folder, stopped at the end) and fills two 2-partition topics
through Spark's Kafka writer: ``1_000_000 × scale`` records of ~45-byte text
values, and as many ~200-byte JSON values (the shape of the ``builtins``
benchmark).  Records have no headers, as most topics' records.  Then, in one
SparkSession, each row runs both jobs alternately and keeps each one's best
of ``rounds``:

- ``kafka → Wasm to_upper → kafka``: ours is ``source=kafka``, the Wasm
  benchmark guest (:data:`smt.benchmarks.wasm.TO_UPPER_WAT`, fast path),
  ``sink=kafka`` with ``sink.topic``; the baseline reads the topic with
  headers, applies ``upper(value)`` and writes key, value and headers to
  another topic.  Target: ours ≥ 0.8× the baseline's records/s.
- ``kafka → 4-SMT JSON chain → kafka``: ours runs the ``builtins`` chain
  (InsertField + MaskField + ReplaceField + TimestampRouter) between JSON
  converters; the baseline is the same logic in Spark SQL
  (:func:`smt.benchmarks.builtins.spark_sql_chain_of`), both writing to the
  dated topics TimestampRouter names.  Target: ≥ 1.0×.  A second row runs
  ours with ``sink.check.topics=false``: what checking the destinations of
  routed records before writing (caching the output) costs.
- Ours writes by default with the Python tasks' librdkafka producers (at
  least once, timestamps kept).  Both rows also run ours with
  ``sink.writer=spark`` (Spark's Kafka connector, which writes no
  timestamps: the default must not be slower) and with
  ``sink.delivery.guarantee=exactly_once`` (a Kafka transaction per Spark
  task): a row against our at-least-once path (target ≥ 0.8×) and one
  against the hand-written job.

Before timing, both jobs of each row run once on a small topic and must give
the same records, or the race is void.  ``python -m smt.benchmarks.kafka
[scale]`` prints the table; ``smt bench kafka --scale 0.1`` is a quick look.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import sys
import tempfile
import time
from typing import Iterator

from smt.benchmarks._common import Comparison, best_alternating
from smt.local.spark_session import local_spark

RECORDS = 1_000_000
PARTITIONS = 2
#: Records of the topics both jobs must agree on before they are timed.
CHECK_RECORDS = 300
TO_UPPER_TARGET = 0.8
JSON_CHAIN_TARGET = 1.0
#: Exactly-once against our own at-least-once path, on the same rows.
EXACTLY_ONCE_TARGET = 0.8


def run(scale: float = 1.0, rounds: int = 2) -> list[Comparison]:
    records = max(1_000, int(RECORDS * scale))
    with _local_broker() as servers:
        spark = _session()
        topics = _Topics(spark, servers)
        return [
            *to_upper_comparisons(spark, topics, records, rounds),
            *json_chain_comparisons(spark, topics, records, rounds),
        ]


# --- the rows ---------------------------------------------------------------------------


def to_upper_comparisons(spark, topics: "_Topics", records: int, rounds: int) -> list[Comparison]:
    """Kafka → Wasm to_upper → Kafka, ours (at least once, exactly once) against ``upper(value)`` in PySpark."""
    with tempfile.TemporaryDirectory(prefix="smt-bench-kafka-") as work:
        guest = os.path.join(work, "to_upper.wat")
        with open(guest, "w", encoding="utf-8") as handle:
            from smt.benchmarks.wasm import TO_UPPER_WAT

            handle.write(TO_UPPER_WAT)

        def ours(source: str, out: str, **extra: str):
            return _pipeline(
                spark,
                topics.servers,
                source,
                {
                    **extra,
                    "sink.topic": out,
                    "transforms": "upper",
                    "transforms.upper.type": "wasm",
                    "transforms.upper.module.path": guest,
                    "transforms.upper.function.name": "to_upper",
                },
            )

        def handwritten(source: str, out: str) -> None:
            _upper(_read(spark, topics.servers, source)).write.format("kafka").options(
                **{"kafka.bootstrap.servers": topics.servers, "topic": out}
            ).save()

        check_in, check_ours, check_eos, check_theirs = topics.create(
            "upper-check-in", "upper-check-ours", "upper-check-eos", "upper-check-spark"
        )
        topics.fill(check_in, _text_values(spark, CHECK_RECORDS))
        ours(check_in, check_ours)
        ours(check_in, check_eos, **_exactly_once("upper-check"))
        handwritten(check_in, check_theirs)
        _require_same(topics.values(check_ours), topics.values(check_theirs))
        _require_same(topics.values(check_eos), topics.values(check_theirs))

        source, ours_out, connector_out, eos_out, spark_out = topics.create(
            "upper-in", "upper-ours", "upper-connector", "upper-eos", "upper-spark"
        )
        topics.fill(source, _text_values(spark, records))
        best = best_alternating(
            records, rounds,
            ("smt, Wasm to_upper", lambda: _expect(records, ours(source, ours_out))),
            (f"smt, Wasm to_upper{_CONNECTOR}", lambda: _expect(records, ours(source, connector_out, **_SPARK_S))),
            (f"smt, Wasm to_upper{_EOS}", lambda: _expect(records, ours(source, eos_out, **_exactly_once("upper")))),
            ("PySpark upper()", lambda: handwritten(source, spark_out)))  # fmt: skip
        return _writer_rows("kafka → Wasm to_upper → kafka", best, "smt, Wasm to_upper", "PySpark upper()",
                            TO_UPPER_TARGET)  # fmt: skip


#: The variants of our own run, by the suffix of their names.
_CONNECTOR = ", Spark's Kafka connector"
_EOS = ", exactly once"
_SPARK_S = {"sink.writer": "spark"}


def _exactly_once(name: str) -> dict[str, str]:
    return {"sink.delivery.guarantee": "exactly_once", "sink.transactional.id.prefix": f"smt-bench-{name}"}


def _writer_rows(name: str, best: dict, ours: str, baseline: str, target: float) -> list[Comparison]:
    """Our default (at least once, librdkafka) against the hand-written job and against Spark's connector,
    and exactly-once against our default and against the hand-written job."""
    return [
        Comparison(name, best[ours], best[baseline], target),
        Comparison(f"{name}, our librdkafka vs Spark's connector (at least once)", best[ours],
                   best[ours + _CONNECTOR], 1.0),
        Comparison(f"{name}, exactly once vs our at-least-once", best[ours + _EOS], best[ours],
                   EXACTLY_ONCE_TARGET),
        Comparison(f"{name}, exactly once vs hand-written", best[ours + _EOS], best[baseline]),
    ]  # fmt: skip


def json_chain_comparisons(spark, topics: "_Topics", records: int, rounds: int) -> list[Comparison]:
    """Kafka → the 4-SMT JSON chain → Kafka, ours against the same logic in Spark SQL.

    TimestampRouter may route every record, so the sink caches the output to
    check its destination topics before writing (``sink.check.topics``); a
    second row shows the same run without that check.
    """
    from smt.benchmarks.builtins import CHAIN_PROPERTIES, json_values

    settings = {
        "key.converter": "json",
        "key.converter.schemas.enable": "false",
        "value.converter": "json",
        "value.converter.schemas.enable": "false",
        **CHAIN_PROPERTIES,
    }

    def ours(source: str, extra: dict[str, str] | None = None):
        return _pipeline(spark, topics.servers, source, {**settings, **(extra or {})})

    def handwritten(source: str):
        return _spark_sql_chain(_read(spark, topics.servers, source))

    def write(df) -> None:
        df.write.format("kafka").option("kafka.bootstrap.servers", topics.servers).save()

    (check_in,) = topics.create("json-check-in")
    topics.create_dated(check_in)
    topics.fill(check_in, json_values(spark, CHECK_RECORDS, partitions=1))
    ours(check_in)
    theirs = sorted((row.topic, _canonical(row.value)) for row in handwritten(check_in).collect())
    mine = sorted((topic, _canonical(value)) for topic, value in topics.read_all(_dated_topics(check_in)))
    _require_same(mine, theirs)

    (source,) = topics.create("json-in")
    topics.create_dated(source)
    topics.fill(source, json_values(spark, records, partitions=PARTITIONS))
    unchecked = {"sink.check.topics": "false"}
    best = best_alternating(
        records, rounds,
        ("smt, JSON converters + 4 SMTs", lambda: _expect(records, ours(source))),
        (f"smt, JSON converters + 4 SMTs{_CONNECTOR}", lambda: _expect(records, ours(source, _SPARK_S))),
        (f"smt, JSON converters + 4 SMTs{_EOS}", lambda: _expect(records, ours(source, _exactly_once("json")))),
        ("the same, sink.check.topics=false", lambda: _expect(records, ours(source, unchecked))),
        ("hand-written Spark SQL", lambda: write(handwritten(source))))  # fmt: skip
    baseline = best["hand-written Spark SQL"]
    return [
        *_writer_rows(
            "kafka → 4-SMT JSON chain → kafka",
            best,
            "smt, JSON converters + 4 SMTs",
            "hand-written Spark SQL",
            JSON_CHAIN_TARGET,
        ),  # fmt: skip
        Comparison(
            "the same without caching the output to check its topics",
            best["the same, sink.check.topics=false"],
            baseline,
        ),
    ]


# --- the two sides ------------------------------------------------------------------------


def _pipeline(spark, servers: str, source: str, settings: dict[str, str]):
    from smt.pipeline import PipelineSpec, run_pipeline

    spec = PipelineSpec.from_properties({
        "source": "kafka", "source.kafka.bootstrap.servers": servers, "source.topics": source,
        "sink": "kafka", "sink.kafka.bootstrap.servers": servers, **settings})  # fmt: skip
    # The SQL settings `smt run` would give its own session (Arrow batch size, ...).
    for key, value in spec.spark_conf().items():
        if key.startswith("spark.sql."):
            spark.conf.set(key, value)
    return run_pipeline(spec, spark=spark)


def _expect(records: int, result) -> None:
    if result.counts.written != records:
        raise RuntimeError(f"pipeline wrote {result.counts.written} of {records} records")


def _read(spark, servers: str, topic: str):
    return (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", servers)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("includeHeaders", "true")
        .load()
    )


def _upper(df):
    from pyspark.sql import functions as F

    return df.select("key", F.upper(F.col("value").cast("string")).cast("binary").alias("value"), "headers")


def _spark_sql_chain(df):
    from pyspark.sql import functions as F

    from smt.benchmarks.builtins import spark_sql_chain_of

    return spark_sql_chain_of(df, F.col("topic"), F.col("partition"), F.col("timestamp"))


def _canonical(value: bytes | bytearray) -> str:
    return json.dumps(json.loads(bytes(value)), sort_keys=True)


def _require_same(mine: list, theirs: list) -> None:
    if mine != theirs:
        raise AssertionError(f"the two jobs differ ({len(mine)} and {len(theirs)} records): {mine[:2]} vs {theirs[:2]}")


def _dated_topics(topic: str) -> list[str]:
    """What TimestampRouter names ``topic``'s records: today's and, around midnight, tomorrow's date (UTC)."""
    today = datetime.datetime.now(datetime.timezone.utc).date()
    return [f"{topic}-{day:%Y%m%d}" for day in (today, today + datetime.timedelta(days=1))]


# --- data and topics -------------------------------------------------------------------


def _text_values(spark, records: int):
    """``records`` values of about 45 bytes (``{"id":123,"user":"user-123","action":"click"}``)."""
    from pyspark.sql import functions as F

    value = F.concat(
        F.lit('{"id":'),
        F.col("id"),
        F.lit(',"user":"user-'),
        (F.col("id") % 1000).cast("string"),
        F.lit('","action":"click"}'),
    )
    return spark.range(records, numPartitions=PARTITIONS).select(value.alias("value"))


class _Topics:
    """Creates, fills and reads topics of the benchmark's broker (with the Kafka clients in Spark's JVM)."""

    def __init__(self, spark, servers: str) -> None:
        self.spark = spark
        self.servers = servers

    def create(self, *names: str) -> list[str]:
        jvm = self.spark._jvm
        properties = jvm.java.util.Properties()
        properties.setProperty("bootstrap.servers", self.servers)
        admin = jvm.org.apache.kafka.clients.admin.Admin.create(properties)
        try:
            # The broker's default replication factor (1 on a single node).
            new = [
                jvm.org.apache.kafka.clients.admin.NewTopic(
                    name, jvm.java.util.Optional.of(PARTITIONS), jvm.java.util.Optional.empty()
                )
                for name in names
            ]
            admin.createTopics(new).all().get()
            self._await_leaders(admin, names)
        finally:
            admin.close()
        return list(names)

    @staticmethod
    def _await_leaders(admin, names: tuple[str, ...], timeout_s: float = 60.0) -> None:
        """Wait until each partition of ``names`` has a leader: a write sooner may wait out its delivery
        timeout on a loaded machine."""
        deadline = time.monotonic() + timeout_s
        while True:
            described = admin.describeTopics(list(names)).allTopicNames().get()
            leaderless = [
                f"{name}-{partition.partition()}"
                for name in names
                for partition in described.get(name).partitions()
                if partition.leader() is None
            ]
            if not leaderless:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"no leader after {timeout_s:.0f} s for partitions {', '.join(leaderless)}")
            time.sleep(0.2)

    def create_dated(self, topic: str) -> None:
        self.create(*_dated_topics(topic))

    def fill(self, topic: str, values) -> None:
        values.write.format("kafka").option("kafka.bootstrap.servers", self.servers).option("topic", topic).save()

    def values(self, topic: str) -> list[bytes]:
        rows = _read(self.spark, self.servers, topic).select("value").collect()
        return sorted(bytes(row.value) for row in rows)

    def read_all(self, topics: list[str]) -> list[tuple[str, bytes]]:
        df = _read(self.spark, self.servers, ",".join(topics))
        return [(row.topic, bytes(row.value)) for row in df.select("topic", "value").collect()]


@contextlib.contextmanager
def _local_broker() -> Iterator[str]:
    """A fresh local broker in a temporary folder; yields its bootstrap servers."""
    from smt.local.kafka import LocalKafka

    with tempfile.TemporaryDirectory(prefix="smt-bench-kafka-broker-") as state:
        broker = LocalKafka(state_dir=state)
        try:
            yield broker.start(fresh=True).bootstrap_servers
        finally:
            broker.stop()


def _session():
    from connectors.kafka import spark_jars

    session = local_spark("smt-bench-kafka", {"spark.jars": ",".join(spark_jars())})
    session.sparkContext.setLogLevel("ERROR")
    return session


if __name__ == "__main__":  # pragma: no cover
    from smt.benchmarks.runner import area_main

    sys.exit(area_main(run, sys.argv[1:]))
