"""The Kafka sink's exactly-once delivery: its keys, its transactions on a real broker, timestamps kept."""

from __future__ import annotations

import collections

import pyarrow as pa
import pytest

from connectors.kafka import KafkaSink, KafkaWriteError
from connectors.kafka._transactional import TaskTransaction
from smt.errors import ConfigError
from smt.pipeline import PipelineSpec, run_pipeline
from smt.record import TimestampType
from tests.connectors.kafka._helpers import closed_port, configured

NOV_14_2023 = 1_700_000_000_000
CREATE_TIME = TimestampType.CREATE_TIME


def exactly_once(servers="127.0.0.1:9092", **more):
    return configured(KafkaSink, "sink", kafka_bootstrap_servers=servers, delivery_guarantee="exactly_once", **more)


# --- the keys ---------------------------------------------------------------------------


def test_exactly_once_needs_a_transactional_id_prefix():
    with pytest.raises(ConfigError, match=r"sink\.transactional\.id\.prefix: is required with "
                                          r"sink\.delivery\.guarantee=exactly_once"):  # fmt: skip
        exactly_once()


def test_a_prefix_with_other_characters_is_refused():
    with pytest.raises(ConfigError, match=r"transactional\.id\.prefix.*only ASCII letters, digits.*got 'my app'"):
        exactly_once(transactional_id_prefix="my app")


def test_the_guarantee_has_two_names():
    with pytest.raises(ConfigError, match=r"delivery\.guarantee.*at_least_once.*exactly_once"):
        configured(KafkaSink, "sink", kafka_bootstrap_servers="h:1", delivery_guarantee="exactly-once")


def test_settings_that_break_transactions_are_each_named():
    with pytest.raises(ConfigError) as caught:
        configured(KafkaSink, "sink", **{"kafka.bootstrap.servers": "h:1", "delivery.guarantee": "exactly_once",
                                         "transactional.id.prefix": "p", "kafka.enable.idempotence": "false",
                                         "kafka.acks": "1"})  # fmt: skip
    message = str(caught.value)
    assert "sink.kafka.enable.idempotence: must be true with sink.delivery.guarantee=exactly_once" in message
    assert "sink.kafka.acks: must be all (or -1) with sink.delivery.guarantee=exactly_once" in message


def test_a_java_only_truststore_is_refused_and_a_pem_one_translated():
    with pytest.raises(ConfigError, match=r"sink\.kafka\.ssl\.truststore\.location: cannot be given to the Kafka "
                                          r"producer: give the CA certificates as PEM"):  # fmt: skip
        configured(KafkaSink, "sink", **{"kafka.bootstrap.servers": "h:1", "delivery.guarantee": "exactly_once",
                                         "transactional.id.prefix": "p", "kafka.ssl.truststore.location": "/t.p12"})  # fmt: skip
    sink = configured(KafkaSink, "sink", **{
        "kafka.bootstrap.servers": "h:1", "delivery.guarantee": "exactly_once", "transactional.id.prefix": "p",
        "kafka.ssl.truststore.location": "/ca.pem", "kafka.ssl.truststore.type": "PEM",
        "kafka.sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required '
                                  'username="bob" password="s3cret";',
    })  # fmt: skip
    settings = sink._librdkafka.settings
    assert (settings["ssl.ca.location"], settings["sasl.username"], settings["sasl.password"]) == (
        "/ca.pem", "bob", "s3cret")  # fmt: skip


def test_exactly_once_refuses_spark_s_connector():
    with pytest.raises(ConfigError, match=r"sink\.writer: must be librdkafka \(or auto\) with sink\.delivery\."
                                          r"guarantee=exactly_once: Spark's Kafka connector has no transactions"):  # fmt: skip
        exactly_once(transactional_id_prefix="p", writer="spark")


def base_props(servers="127.0.0.1:9092", **more):
    return {"name": "eos", "source": "kafka", "source.kafka.bootstrap.servers": servers, "source.topics": "in",
            "sink": "kafka", "sink.kafka.bootstrap.servers": servers, "sink.topic": "out",
            "sink.delivery.guarantee": "exactly_once", "sink.transactional.id.prefix": "eos",
            "errors.tolerance": "all", **more}  # fmt: skip


def test_a_file_dead_letter_queue_is_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"errors\.deadletterqueue\.path: with sink\.delivery\.guarantee="
                                          r"exactly_once, dead letters must go to a topic of the sink's Kafka "
                                          r"cluster"):  # fmt: skip
        PipelineSpec.from_properties(base_props(**{"errors.deadletterqueue.path": str(tmp_path / "dlq")}))


def test_a_dead_letter_topic_on_another_cluster_is_refused():
    with pytest.raises(ConfigError, match=r"errors\.deadletterqueue\.kafka\.bootstrap\.servers: with sink\."
                                          r"delivery\.guarantee=exactly_once, the dead-letter topic must be on the "
                                          r"sink's Kafka cluster"):  # fmt: skip
        PipelineSpec.from_properties(
            base_props(
                **{
                    "errors.deadletterqueue.topic.name": "dlq",
                    "errors.deadletterqueue.kafka.bootstrap.servers": "other:9092",
                }
            )
        )


def test_a_dead_letter_topic_on_the_same_cluster_is_accepted():
    spec = PipelineSpec.from_properties(base_props(**{"errors.deadletterqueue.topic.name": "dlq"}))
    assert spec.dead_letters.topic == "dlq"


# --- transactions on a real broker ----------------------------------------------------------


def rows(topic: str, values: list[str], stamp: int = NOV_14_2023) -> pa.RecordBatch:
    return pa.RecordBatch.from_pydict({
        "key": [b"k"] * len(values), "value": [v.encode() for v in values],
        "headers": pa.array([[("h", b"1")]] * len(values), pa.list_(pa.struct([("key", pa.string()),
                                                                               ("value", pa.binary())]))),
        "timestamp": pa.array([(stamp + n) * 1000 for n in range(len(values))], pa.timestamp("us", "UTC")),
        "topic": [topic] * len(values),
    })  # fmt: skip


@pytest.fixture
def transaction(kafka_broker):
    """Opens task transactions, closed after the test."""
    opened = []

    def open_one(tid, marker, markers):
        opened.append(TaskTransaction({"bootstrap.servers": kafka_broker.bootstrap_servers}, tid, markers, marker))
        return opened[-1]

    yield open_one
    for one in opened:
        one.close()


@pytest.fixture
def topics(kafka_broker):
    stem = kafka_broker.unique_topic("eos")
    return kafka_broker.create_topic(f"{stem}-out"), kafka_broker.create_topic(f"{stem}-markers"), stem


@pytest.mark.kafka
def test_a_zombie_attempt_is_fenced_and_its_records_never_show(kafka_broker, topics, transaction):
    out, markers, stem = topics
    zombie = transaction(f"{stem}-0", "run/0", markers)
    assert zombie.begin()
    zombie.produce(rows(out, ["zombie-1", "zombie-2"]), keep_partition=False)
    zombie.producer.flush(30)  # its records reach the log, uncommitted
    retry = transaction(f"{stem}-0", "run/0", markers)
    assert retry.begin(), "the zombie never committed: the retry writes"
    retry.produce(rows(out, ["one", "two"]), keep_partition=False)
    retry.commit(0)
    with pytest.raises(KafkaWriteError, match=rf"transactional\.id '{stem}-0': fenced while committing"):
        zombie.commit(0)
    assert [r.value for r in kafka_broker.consume(out)] == [b"one", b"two"]


@pytest.mark.kafka
def test_a_task_committed_by_an_earlier_attempt_writes_nothing_again(kafka_broker, topics, transaction):
    out, markers, stem = topics
    first = transaction(f"{stem}-3", "run/7", markers)
    assert first.begin()
    first.produce(rows(out, ["once"]), keep_partition=False)
    first.commit(7)
    again = transaction(f"{stem}-3", "run/7", markers)
    assert not again.begin(), "the marker says this batch is committed"
    assert again.committed_marker() == "run/7"
    next_batch = transaction(f"{stem}-3", "run/8", markers)
    assert next_batch.begin(), "the next batch of the same task writes"
    next_batch.produce(rows(out, ["next"]), keep_partition=False)
    next_batch.commit(8)
    written = kafka_broker.consume(out)
    assert [r.value for r in written] == [b"once", b"next"]
    assert [(r.timestamp, r.headers) for r in written] == [(NOV_14_2023, (("h", b"1"),))] * 2


# --- whole pipelines --------------------------------------------------------------------------


@pytest.mark.kafka
@pytest.mark.spark
def test_a_batch_run_writes_records_and_dead_letters_once_with_their_timestamps(kafka_spark, kafka_broker):
    stem = kafka_broker.unique_topic("eos-run")
    source = kafka_broker.create_topic(f"{stem}-in", partitions=2)
    out, audit, dlq = (kafka_broker.create_topic(f"{stem}-{name}") for name in ("out", "audit", "dlq"))
    inputs = [{"value": "not json" if n % 10 == 0 else f'{{"n": {n}}}', "partition": n % 2,
               "timestamp": NOV_14_2023 + n, "headers": [("audit", b"y")] if n % 3 == 0 else []}
              for n in range(60)]  # fmt: skip
    kafka_broker.produce(source, inputs)
    props = base_props(
        kafka_broker.bootstrap_servers,
        **{"source.topics": source, "sink.topic": out, "sink.transactional.id.prefix": stem,
           "sink.transactional.markers.topic": f"{stem}-markers",
           "value.converter": "json", "value.converter.schemas.enable": "false",
           "transforms": "audit", "transforms.audit.type": "RegexRouter", "transforms.audit.predicate": "audited",
           "transforms.audit.regex": ".*", "transforms.audit.replacement": audit,
           "predicates": "audited", "predicates.audited.type": "HasHeaderKey", "predicates.audited.name": "audit",
           "errors.deadletterqueue.topic.name": dlq},
    )  # fmt: skip
    result = run_pipeline(PipelineSpec.from_properties(props), spark=kafka_spark)
    assert (result.counts.read, result.counts.written, result.counts.dead_lettered) == (60, 54, 6)

    written = {name: kafka_broker.consume(topic) for name, topic in (("out", out), ("audit", audit), ("dlq", dlq))}
    stamps = collections.Counter(record.timestamp for records in written.values() for record in records)
    assert stamps == collections.Counter(NOV_14_2023 + n for n in range(60)), "every record once, its own timestamp"
    assert len(written["dlq"]) == 6 and {r.value for r in written["dlq"]} == {b"not json"}
    assert {r.timestamp - NOV_14_2023 for r in written["audit"]} == {n for n in range(60) if n % 3 == 0 and n % 10}
    assert {r.timestamp_type for records in written.values() for r in records} == {CREATE_TIME}


@pytest.mark.kafka
@pytest.mark.slow
def test_a_broker_restarted_mid_transaction_leaves_every_record_once(tmp_path):
    """The broker restarts while a task's transaction is open; the task commits, or fails and its retry
    writes: either way a read_committed consumer sees each record once."""
    from smt.local.kafka import LocalKafka
    from smt.testing.kafka import KafkaTestBroker

    broker = LocalKafka(state_dir=tmp_path / "broker", port=closed_port())  # the same port after the restart
    client = KafkaTestBroker(broker.start(fresh=True).bootstrap_servers, local=broker)
    try:
        out, markers = client.create_topic("restart-out"), client.create_topic("restart-markers")
        settings = {"bootstrap.servers": client.bootstrap_servers, "message.timeout.ms": "120000"}
        values = [f"v{n}" for n in range(200)]

        def attempt(restart: bool) -> None:
            task = TaskTransaction(settings, "restart-0", markers, "run/0")
            try:
                if not task.begin():
                    return
                task.produce(rows(out, values[:100]), keep_partition=False)
                task.producer.flush(30)
                if restart:
                    client.restart()  # on the same port
                task.produce(rows(out, values[100:]), keep_partition=False)
                task.commit(0)
            finally:
                task.close()

        try:
            attempt(restart=True)
        except KafkaWriteError:
            attempt(restart=False)  # what Spark's retry of the task does
        assert sorted(r.value.decode() for r in client.consume(out)) == sorted(values)
    finally:
        broker.stop()
