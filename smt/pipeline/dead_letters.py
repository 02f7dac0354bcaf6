"""Where dead letters go: a file location (JSON lines) or a Kafka topic.

Both answer ``record_errors`` like a sink: the dead letters the queue itself
cannot take (a Kafka topic's producer limits).  The batch processor logs and
drops those, as Kafka Connect's dead-letter reporter does, rather than fail
the whole run.
"""

from __future__ import annotations

from typing import Any

from smt._chain_builder import sub_configs
from smt.plugin import PluginContext


class _FileDeadLetters:
    """Dead letters as whole records in the ``jsonl`` file format (readable back with
    ``source.format=jsonl``); each streaming micro-batch is written exactly once."""

    def __init__(self, path: str) -> None:
        self.path = path

    def spark_conf(self) -> dict[str, str]:
        return {}

    def record_errors(self, records) -> list:
        return []  # jsonl holds any record

    def write(self, df, batch_id=None) -> None:
        from connectors.file._micro_batch import write_micro_batch
        from connectors.file.formats import FORMATS

        jsonl = FORMATS["jsonl"]
        if batch_id is None:
            jsonl.write(df, self.path, "append")
        else:
            write_micro_batch(jsonl, df, self.path, batch_id)


class _TopicDeadLetters:
    """Dead letters to a Kafka topic through the Kafka sink connector."""

    def __init__(self, sink: Any, topic: str) -> None:
        self.sink = sink
        self.topic = topic

    def spark_conf(self) -> dict[str, str]:
        return self.sink.spark_conf()

    def check(self, spark) -> None:
        self.sink.check(spark)

    def record_errors(self, records) -> list:
        """Dead letters the topic's producer would refuse, as they will be written (to ``topic``)."""
        import pyarrow as pa

        index = records.schema.get_field_index("topic")
        topics = pa.array([self.topic] * records.num_rows, pa.string())
        return list(self.sink.record_errors(records.set_column(index, "topic", topics)))

    def write(self, df, batch_id=None) -> None:
        from pyspark.sql import functions as F

        self.sink.write(df.withColumn("topic", F.lit(self.topic)), batch_id)


def dead_letter_sink(spec: Any) -> Any:
    """The dead-letter writer the spec asks for, or None."""
    policy = spec.policy
    if not policy.tolerates_all or not policy.dead_letters:
        return None
    if policy.dlq_path:
        return _FileDeadLetters(policy.dlq_path)
    return _TopicDeadLetters(_kafka_sink(spec), policy.dlq_topic)


def _kafka_sink(spec: Any) -> Any:
    from smt.plugins import default_plugins

    # errors.deadletterqueue.kafka.* wins; otherwise reuse the sink's Kafka settings.
    configs = sub_configs(spec.props, "errors.deadletterqueue.")
    kafka = {k: v for k, v in configs.items() if k.startswith("kafka.")}
    if not kafka and spec.config.get("sink") == "kafka":
        kafka = {k: v for k, v in sub_configs(spec.props, "sink.").items() if k.startswith("kafka.")}
    sink = default_plugins().get("sink", "kafka")()
    sink.configure({**kafka, "topic": spec.policy.dlq_topic},
                   PluginContext(alias="dead-letter-queue", prefix="errors.deadletterqueue."))
    return sink
