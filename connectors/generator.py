"""A source of synthetic events for demos and benchmarks (``source=generator``).

Record ``i`` is a function of ``i`` and the seed only, so a run (or a replayed
micro-batch) always produces the same records: the value is a JSON event ::

    {"event_id":7,"user_id":"user-42","email":"user42@example.com","amount":123.45,"currency":"EUR"}

the key is the user id, the topic is ``topic``, the offset is ``i`` and the
timestamp ``start.timestamp.ms + i * 1000 / rate`` (``+ i`` with ``rate=0``).  Everything is built with
Spark expressions on the executors (no Python per record).

Batch mode produces ``records`` records as fast as Spark can.  Streaming
produces them in micro-batches of at most ``rows.per.batch``, at ``rate``
records/s or, with ``rate=0``, as fast as possible (see
:mod:`connectors._generator_stream`); with ``streaming.trigger=availableNow``
the query ends after the last record (``rate=0``), otherwise it runs until
stopped (``streaming.timeout.ms``).
"""

from __future__ import annotations

from smt.config import ConfigDef, ConfigType, Importance, at_least
from smt.connector import Source
from smt.sessions import default_parallelism


class GeneratorSource(Source):
    """Synthetic JSON events (user ids, emails, amounts), N of them, at a rate or as fast as possible."""

    name = "generator"
    aliases = ("datagen",)
    supports_streaming = True
    config_def = (
        ConfigDef()
        .define(
            "records",
            ConfigType.LONG,
            1000,
            at_least(0),
            Importance.HIGH,
            "How many records to produce (streaming: 0 = no end).",
        )
        .define(
            "rate",
            ConfigType.LONG,
            0,
            at_least(0),
            Importance.HIGH,
            "Records per second in streaming mode; 0 = as fast as possible. In batch mode it only "
            "spaces the timestamps.",
        )
        .define(
            "rows.per.batch",
            ConfigType.LONG,
            100_000,
            at_least(1),
            Importance.LOW,
            "Streaming: at most this many records per micro-batch.",
        )
        .define(
            "partitions",
            ConfigType.INT,
            0,
            at_least(0),
            Importance.MEDIUM,
            "Spark partitions to generate in (0 = Spark's default parallelism).",
        )
        .define("topic", ConfigType.STRING, "events", None, Importance.MEDIUM, "Topic of the records.")
        .define(
            "users",
            ConfigType.INT,
            1000,
            at_least(1),
            Importance.LOW,
            "Number of distinct users the events are spread over.",
        )
        .define("seed", ConfigType.LONG, 0, None, Importance.LOW, "Seed of the pseudo-random users and amounts.")
        .define(
            "start.timestamp.ms",
            ConfigType.LONG,
            1_700_000_000_000,
            None,
            Importance.LOW,
            "Timestamp of the first record, epoch milliseconds.",
        )
    )

    def read(self, spark, streaming=False):
        partitions = self.config["partitions"] or default_parallelism(spark)
        if streaming:
            indices = self._streaming_indices(spark, partitions)
        else:
            indices = spark.range(0, self.config["records"], numPartitions=partitions).withColumnRenamed("id", "i")
        return events(indices, self.config)

    def _streaming_indices(self, spark, partitions: int):
        from connectors._generator_stream import GeneratorNumbers

        spark.dataSource.register(GeneratorNumbers)
        return (
            spark.readStream.format(GeneratorNumbers.name())
            .option("records", str(self.config["records"]))
            .option("rate", str(self.config["rate"]))
            .option("rowsPerBatch", str(self.config["rows.per.batch"]))
            .option("partitions", str(partitions))
            .load()
        )


def events(indices, config):
    """Kafka-layout rows for the event numbers in column ``i``."""
    from pyspark.sql import functions as F

    i = F.col("i")
    seed = F.lit(config["seed"])
    user = F.pmod(F.xxhash64(i, seed), F.lit(config["users"]))
    cents = F.pmod(F.xxhash64(seed, i, F.lit("amount")), F.lit(100_000))
    user_id = F.concat(F.lit("user-"), user.cast("string"))
    event = F.struct(
        i.alias("event_id"),
        user_id.alias("user_id"),
        F.concat(F.lit("user"), user.cast("string"), F.lit("@example.com")).alias("email"),
        (cents / 100).cast("decimal(10,2)").alias("amount"),
        F.lit("EUR").alias("currency"),
    )
    step_ms = 1000.0 / config["rate"] if config["rate"] else 1.0
    millis = F.lit(config["start.timestamp.ms"]) + (i * F.lit(step_ms)).cast("long")
    return indices.select(
        F.encode(user_id, "UTF-8").alias("key"),
        F.encode(F.to_json(event), "UTF-8").alias("value"),
        F.lit(config["topic"]).alias("topic"),
        F.lit(0).alias("partition"),
        i.alias("offset"),
        F.timestamp_millis(millis).alias("timestamp"),
        F.lit(0).alias("timestampType"),
        F.array().cast("array<struct<key:string,value:binary>>").alias("headers"),
    )
