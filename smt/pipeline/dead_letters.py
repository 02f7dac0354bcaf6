"""Where dead letters go: a file location (JSON lines) or a Kafka topic."""

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
