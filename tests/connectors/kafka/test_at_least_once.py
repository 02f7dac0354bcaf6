"""The Kafka sink's default write: at least once by Python tasks (librdkafka), each record with its own timestamp.

``sink.writer`` chooses who sends the records: ``auto`` (the default) and
``librdkafka`` the pipeline's tasks, ``spark`` Spark's Kafka connector
(the time of writing as timestamp).  A pipeline whose Wasm guest moves each
record's timestamp reads them back; a record the broker refuses fails the
run, naming the cluster and the topic.
"""

from __future__ import annotations

import logging
import re

import pytest

from connectors.kafka import KafkaSink, KafkaWriteError
from smt.errors import ConfigError
from smt.pipeline import PipelineSpec, run_pipeline
from smt.record import TimestampType
from tests.connectors.kafka._helpers import configured
from tests.host_functions import wat_guests as g

NOV_14_2023 = 1_700_000_000_000
DAY_MS = 86_400_000
RECORDS = 40

#: Moves each record's timestamp one day later (a transform that sets the timestamp).
NEXT_DAY = g.guest(
    f'(func (export "next_day") (call $set_timestamp (i64.add (call $get_timestamp) (i64.const {DAY_MS}))))',
    ("get_timestamp", "set_timestamp"),
)

PKCS12_TRUST = {"kafka.ssl.truststore.location": "/t.p12", "kafka.ssl.truststore.type": "PKCS12"}


def sink(**more):
    return configured(KafkaSink, "sink", **{"kafka.bootstrap.servers": "h:1", **more})


# --- who writes -------------------------------------------------------------------------------


def test_by_default_python_tasks_write_each_record_s_timestamp_with_an_idempotent_producer():
    default = sink()
    assert "timestamp" in default.output_fields()
    assert not default._librdkafka.exactly_once
    assert default._librdkafka.settings["enable.idempotence"] == "true"


def test_spark_s_connector_writes_no_timestamp():
    assert "timestamp" not in sink(writer="spark").output_fields()


def test_idempotence_is_off_when_the_settings_rule_it_out_and_as_given_when_given():
    assert sink(**{"kafka.acks": "1"})._librdkafka.settings["enable.idempotence"] == "false"
    assert sink(**{"kafka.retries": "0"})._librdkafka.settings["enable.idempotence"] == "false"
    given = sink(**{"kafka.enable.idempotence": "false"})._librdkafka.settings
    assert given["enable.idempotence"] == "false"


def test_auto_falls_back_to_spark_s_connector_for_a_java_only_setting_and_says_which(caplog):
    with caplog.at_level(logging.WARNING, logger="connectors.kafka._delivery"):
        fallen = sink(**PKCS12_TRUST)
    assert fallen._librdkafka is None and "timestamp" not in fallen.output_fields()
    assert "sink.writer=auto: writing through Spark's Kafka connector, whose records get the time of writing" in (
        caplog.text
    )
    assert "sink.kafka.ssl.truststore.location: cannot be given to the Kafka producer" in caplog.text


def test_librdkafka_chosen_refuses_each_setting_it_cannot_take_naming_the_key():
    with pytest.raises(ConfigError) as caught:
        sink(writer="librdkafka", **PKCS12_TRUST, **{"kafka.max.block.ms": "500", "kafka.linger.ms": "soon"})
    message = str(caught.value)
    assert "sink.kafka.ssl.truststore.location: cannot be given to the Kafka producer: give the CA" in message
    with pytest.raises(ConfigError) as caught:
        sink(writer="librdkafka", **{"kafka.max.block.ms": "500", "kafka.linger.ms": "soon"})
    message = str(caught.value)
    assert 'sink.kafka.max.block.ms: the Kafka producer (librdkafka) refuses it: No such configuration property: "max.block.ms"' in message  # fmt: skip
    assert "sink.kafka.linger.ms: the Kafka producer (librdkafka) refuses it: Invalid value" in message


def test_the_writer_has_three_names():
    with pytest.raises(ConfigError, match=r"sink\.writer: must be one of auto, librdkafka, spark; got 'java'"):
        sink(writer="java")


# --- on a real broker ---------------------------------------------------------------------------


def pipeline(servers: str, source: str, out: str, guest, **more) -> PipelineSpec:
    return PipelineSpec.from_properties({
        "name": "alo", "source": "kafka", "source.kafka.bootstrap.servers": servers, "source.topics": source,
        "sink": "kafka", "sink.kafka.bootstrap.servers": servers, "sink.topic": out,
        "transforms": "shift", "transforms.shift.type": "wasm", "transforms.shift.module.path": str(guest),
        "transforms.shift.function.name": "next_day", **more,
    })  # fmt: skip


@pytest.fixture
def next_day(tmp_path):
    path = tmp_path / "next_day.wat"
    path.write_text(NEXT_DAY, encoding="utf-8")
    return path


@pytest.mark.kafka
@pytest.mark.spark
def test_each_record_keeps_the_timestamp_the_chain_gave_it(kafka_spark, kafka_broker, next_day):
    stem = kafka_broker.unique_topic("alo")
    source = kafka_broker.create_topic(f"{stem}-in", partitions=2)
    ours, spark_s = kafka_broker.create_topic(f"{stem}-out"), kafka_broker.create_topic(f"{stem}-spark")
    kafka_broker.produce(source, [{"key": f"k{n}", "value": f"v{n}", "partition": n % 2,
                                   "timestamp": NOV_14_2023 + n} for n in range(RECORDS)])  # fmt: skip
    servers = kafka_broker.bootstrap_servers
    result = run_pipeline(pipeline(servers, source, ours, next_day), spark=kafka_spark)
    assert (result.counts.read, result.counts.written) == (RECORDS, RECORDS)
    written = kafka_broker.consume(ours)
    assert sorted((r.value.decode(), r.timestamp) for r in written) == sorted(
        (f"v{n}", NOV_14_2023 + n + DAY_MS) for n in range(RECORDS)
    ), "every record once, with the timestamp the guest set"
    assert {r.timestamp_type for r in written} == {TimestampType.CREATE_TIME}

    # Spark's connector, on the same records, gives them the time of writing: the check above can tell.
    run_pipeline(pipeline(servers, source, spark_s, next_day, **{"sink.writer": "spark"}), spark=kafka_spark)
    stamps = {r.timestamp for r in kafka_broker.consume(spark_s, RECORDS)}
    assert stamps.isdisjoint(NOV_14_2023 + n + DAY_MS for n in range(RECORDS))


@pytest.mark.kafka
@pytest.mark.spark
def test_a_record_the_broker_refuses_fails_the_run_naming_the_cluster_and_topic(kafka_spark, kafka_broker, next_day):
    from confluent_kafka.admin import AdminClient, NewTopic

    stem = kafka_broker.unique_topic("alo-refused")
    source, small = kafka_broker.create_topic(f"{stem}-in"), f"{stem}-small"
    servers = kafka_broker.bootstrap_servers
    admin = AdminClient({"bootstrap.servers": servers})
    admin.create_topics([NewTopic(small, 1, 1, config={"max.message.bytes": "200"})])[small].result(30)
    kafka_broker.produce(source, [{"value": "x" * 20}, {"value": "y" * 500}, {"value": "z" * 20}])
    # No retry of the task or of the send: the record is too large for the topic every time.
    spec = pipeline(servers, source, small, next_day, **{"sink.kafka.retries": "0"})
    with pytest.raises(KafkaWriteError) as caught:
        run_pipeline(spec, spark=kafka_spark)
    assert f"writing to the Kafka cluster at {servers} failed; records written before the failure stay" in str(
        caught.value
    )
    # librdkafka sends the three in one request, which the broker refuses whole.
    assert re.search(rf"KafkaWriteError: [1-3] of the 3 records of task 0 were not acknowledged by {servers} "
                     rf"\(Spark retries the task\): topic '{small}' partition 0: Broker: Message size too large$",
                     str(caught.value))  # fmt: skip
    # What a failed run says it committed: the records sent before the failure may stay, so unknown.
    failed = caught.value.failed_counts
    assert {"read", "written", "output_rows"} <= set(failed.uncertain), failed


@pytest.mark.kafka
def test_a_python_worker_keeps_its_producer_for_the_next_task_and_drops_one_whose_task_failed(kafka_broker):
    # A new producer connects, fetches metadata and asks for a producer id before its first send: a
    # streaming micro-batch paid that (about half a second) for every task.
    from connectors.kafka._at_least_once import _WorkerProducers

    settings = {"bootstrap.servers": kafka_broker.bootstrap_servers, "enable.idempotence": "true"}
    topic = kafka_broker.create_topic(kafka_broker.unique_topic("alo-pool"))
    producers = _WorkerProducers()
    with producers.lease(settings) as (first, _):
        first.produce(topic, b"a")
        first.flush(30)
    with producers.lease(settings) as (second, failures):
        assert second is first
        assert failures.count == 0
    with producers.lease({**settings, "linger.ms": "1"}) as (other, _):
        assert other is not first  # other settings, another producer
    with pytest.raises(RuntimeError, match="the task failed"):
        with producers.lease(settings) as (failing, _):
            raise RuntimeError("the task failed")
    with producers.lease(settings) as (after_failure, _):
        assert after_failure is not failing
