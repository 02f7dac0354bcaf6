"""The Kafka source's consumer group: what a run durably wrote is committed, and a rerun goes on from it.

Kafka Connect commits a connector's progress to ``connect-<name>``; lag monitors and
``kafka-consumer-groups`` read it there, and a restarted connector resumes from it.  Read back with a
consumer of the group's own (an independent reader), not through the source.
"""

from __future__ import annotations

import pytest

from smt.errors import ConfigError
from smt.pipeline.runner import run_pipeline
from smt.pipeline.spec import PipelineSpec


def _committed(kafka_broker, group: str, topic: str, partitions: int) -> dict[int, int]:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": kafka_broker.bootstrap_servers, "group.id": group})
    try:
        found = consumer.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=30)
    finally:
        consumer.close()
    return {tp.partition: tp.offset for tp in found}


def _run(kafka_spark, kafka_broker, topic: str, out, **keys: str):
    props = {
        "name": "orders-copy",
        "source": "kafka",
        "source.kafka.bootstrap.servers": kafka_broker.bootstrap_servers,
        "source.topics": topic,
        "sink": "file",
        "sink.path": str(out),
        "sink.format": "jsonl",
        **keys,
    }
    return run_pipeline(PipelineSpec.from_properties(props), spark=kafka_spark)


def test_a_batch_run_commits_what_it_wrote_to_connect_name_and_a_group_rerun_reads_only_what_is_new(
    kafka_spark, kafka_broker, tmp_path
):
    topic = kafka_broker.create_topic(kafka_broker.unique_topic("grouped"), partitions=2)
    kafka_broker.produce(topic, [{"value": f"v{i}", "partition": i % 2} for i in range(5)])  # 3 on p0, 2 on p1

    first = _run(kafka_spark, kafka_broker, topic, tmp_path / "first", **{"source.starting.offsets": "group"})
    assert first.counts.read == 5
    assert _committed(kafka_broker, "connect-orders-copy", topic, 2) == {0: 3, 1: 2}

    kafka_broker.produce(topic, [{"value": "new", "partition": 1}])
    second = _run(kafka_spark, kafka_broker, topic, tmp_path / "second", **{"source.starting.offsets": "group"})
    assert second.counts.read == 1
    assert _committed(kafka_broker, "connect-orders-copy", topic, 2) == {0: 3, 1: 3}

    # Without starting.offsets=group a rerun reads everything again (Spark's earliest), and says so in the
    # group only by committing the same ends.
    again = _run(kafka_spark, kafka_broker, topic, tmp_path / "again")
    assert again.counts.read == 6


def test_a_named_group_is_used_and_offsets_commit_false_leaves_it_alone(kafka_spark, kafka_broker, tmp_path):
    topic = kafka_broker.create_topic(kafka_broker.unique_topic("named-group"))
    kafka_broker.produce(topic, [{"value": "a"}, {"value": "b"}])

    _run(kafka_spark, kafka_broker, topic, tmp_path / "off",
         **{"source.kafka.group.id": "quiet", "source.offsets.commit": "false"})  # fmt: skip
    assert _committed(kafka_broker, "quiet", topic, 1) == {0: -1001}  # librdkafka's "no committed offset"
    _run(kafka_spark, kafka_broker, topic, tmp_path / "on", **{"source.kafka.group.id": "loud"})
    assert _committed(kafka_broker, "loud", topic, 1) == {0: 2}


def test_the_group_is_not_handed_to_sparks_consumers():
    from connectors.kafka import KafkaSource
    from tests.connectors.kafka._helpers import configured

    source = configured(KafkaSource, "source", kafka_bootstrap_servers="127.0.0.1:9092", topics="a",
                        kafka_group_id="mine")  # fmt: skip
    assert "kafka.group.id" not in source._spark_options(streaming=False)
    assert source.group.group_id == "mine"


_JAVA_TRUSTSTORE = {
    "source": "kafka",
    "source.kafka.bootstrap.servers": "127.0.0.1:9092",
    "source.topics": "a",
    "source.kafka.security.protocol": "SSL",
    "source.kafka.ssl.truststore.location": "/etc/kafka/truststore.p12",
    "source.kafka.ssl.truststore.password": "secret",
    "sink": "console",
}


def test_a_java_truststore_the_groups_consumer_cannot_read_leaves_progress_uncommitted_and_says_so(caplog):
    spec = PipelineSpec.from_properties(_JAVA_TRUSTSTORE)

    assert spec.source.group.unreachable is not None
    assert "source.offsets.commit: the source's progress is not committed" in caplog.text
    assert "source.kafka.ssl.truststore.location" in caplog.text
    assert spec.source._resolved_offsets(streaming=False) == {}  # Spark's Java consumers resolve the ends


def test_starting_from_the_group_with_a_java_truststore_is_refused():
    with pytest.raises(ConfigError, match=r"source\.starting\.offsets: 'group' reads the group's offsets with "
                       r"librdkafka, which cannot take the settings: source\.kafka\.ssl\.truststore"):  # fmt: skip
        PipelineSpec.from_properties({**_JAVA_TRUSTSTORE, "source.starting.offsets": "group"})


@pytest.mark.parametrize("name, expected", [("", "connect-smt-pipeline"), ("orders", "connect-orders")])
def test_the_default_group_is_connect_and_the_pipelines_name(name, expected):
    props = {"source": "kafka", "source.kafka.bootstrap.servers": "127.0.0.1:9092", "source.topics": "a",
             "sink": "console", **({"name": name} if name else {})}  # fmt: skip
    assert PipelineSpec.from_properties(props).source.group.group_id == expected


def test_a_streaming_run_commits_each_micro_batch_it_wrote(kafka_spark, kafka_broker, tmp_path):
    topic = kafka_broker.create_topic(kafka_broker.unique_topic("streamed-group"), partitions=2)
    kafka_broker.produce(topic, [{"value": f"v{i}", "partition": i % 2} for i in range(4)])
    keys = {"mode": "streaming", "streaming.trigger": "availableNow", "checkpoint.location": str(tmp_path / "cp"),
            "source.max.offsets.per.trigger": "1"}  # fmt: skip
    result = _run(kafka_spark, kafka_broker, topic, tmp_path / "out", **keys)
    assert result.counts.read == 4
    assert _committed(kafka_broker, "connect-orders-copy", topic, 2) == {0: 2, 1: 2}


@pytest.mark.parametrize(
    "reported",
    ['{"orders":{"1":7,"0":3}}', "{'orders': {'1': 7, '0': 3}}", {"orders": {"1": 7, "0": 3}}],
    ids=["json", "pyspark-4.1-python-text", "object"],
)
def test_a_micro_batchs_end_offsets_are_read_as_each_pyspark_reports_them(reported):
    # PySpark 4.1's SourceProgress.fromJson gives endOffset as str() of the parsed JSON.
    from connectors.kafka._group_offsets import parse_offsets

    assert parse_offsets(reported) == {"orders": {0: 3, 1: 7}}


def test_the_group_keeps_one_consumer_for_its_commits_and_a_copy_of_it_carries_none(kafka_broker):
    import pickle

    from connectors.kafka._group_offsets import GroupOffsets

    topic = kafka_broker.create_topic(kafka_broker.unique_topic("kept-committer"), partitions=2)
    group = GroupOffsets({"bootstrap.servers": kafka_broker.bootstrap_servers}, "kept", "source.kafka.", "k")
    group.commit({topic: {0: 1, 1: 2}})
    committer = group._committer
    group.commit({topic: {0: 3}})
    assert group._committer is committer  # each micro-batch's commit reuses it
    assert _committed(kafka_broker, "kept", topic, 2) == {0: 3, 1: 2}
    assert pickle.loads(pickle.dumps(group))._committer is None
    group.close()
    assert group._committer is None
    group.commit({topic: {1: 4}})  # after close, a new consumer
    assert _committed(kafka_broker, "kept", topic, 2) == {0: 3, 1: 4}
    group.close()
