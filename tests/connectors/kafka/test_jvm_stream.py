"""A streaming Kafka → Kafka run whose records stay in the JVM (smt.pipeline.jvm_stream), Spark's real-time mode."""

from __future__ import annotations

import logging

import pytest

from smt.errors import ConfigError
from smt.pipeline import PipelineSpec, run_pipeline

_IN_THE_JVM = "every record stays in the JVM"


def _spec(kafka_broker, tmp_path, stem: str, source: str, output: str, **props: str) -> PipelineSpec:
    servers = kafka_broker.bootstrap_servers
    return PipelineSpec.from_properties({
        "name": stem, "mode": "streaming", "streaming.trigger": "availableNow",
        "checkpoint.location": str(tmp_path / "checkpoint"),
        "source": "kafka", "source.kafka.bootstrap.servers": servers, "source.topics": source,
        "sink": "kafka", "sink.kafka.bootstrap.servers": servers, "sink.topic": output, "sink.writer": "spark",
        **props,
    })  # fmt: skip


def test_a_stream_of_bytes_runs_in_the_jvm_counted_and_resumes(kafka_spark, kafka_broker, tmp_path, caplog):
    stem = kafka_broker.unique_topic("jvm-stream")
    source, output = kafka_broker.create_topic(f"{stem}-in", partitions=2), kafka_broker.create_topic(f"{stem}-out")
    spec = _spec(kafka_broker, tmp_path, stem, source, output)
    kafka_broker.produce(source, [
        {"key": "a", "value": "1", "headers": [("h", "x")], "partition": 0},
        {"key": None, "value": None, "partition": 1},
    ])  # fmt: skip
    with caplog.at_level(logging.INFO, logger="smt.pipeline.runner"):
        first = run_pipeline(spec, spark=kafka_spark).counts
    assert _IN_THE_JVM in caplog.text
    assert (first.read, first.written, first.filtered, first.failed) == (2, 2, 0, 0)

    kafka_broker.produce(source, [{"key": "c", "value": "3", "partition": 0}])
    second = run_pipeline(spec, spark=kafka_spark).counts
    assert (second.read, second.written) == (1, 1)
    written = sorted(kafka_broker.consume(output, 3), key=lambda r: (r.key or b"", r.value or b""))
    assert [(r.key, r.value, r.headers) for r in written] == [
        (None, None, ()),
        (b"a", b"1", (("h", b"x"),)),
        (b"c", b"3", ()),
    ]


def test_a_compiled_chain_runs_in_the_jvm_and_counts_each_stage(kafka_spark, kafka_broker, tmp_path, caplog):
    """InsertHeader, then a Filter of the records with a header named drop: each record counted where it
    went, each stage's records in and out."""
    stem = kafka_broker.unique_topic("jvm-stream-chain")
    source, output = kafka_broker.create_topic(f"{stem}-in"), kafka_broker.create_topic(f"{stem}-out")
    spec = _spec(kafka_broker, tmp_path, stem, source, output, **{
        "transforms": "tag,drop", "header.converter": "string",
        "transforms.tag.type": "InsertHeader", "transforms.tag.header": "via", "transforms.tag.value.literal": "smt",
        "transforms.drop.type": "Filter", "transforms.drop.predicate": "marked",
        "predicates": "marked", "predicates.marked.type": "HasHeaderKey", "predicates.marked.name": "drop",
    })  # fmt: skip
    kafka_broker.produce(source, [
        {"key": "a", "value": "1", "headers": [("h", "x")]},
        {"key": "b", "value": "2", "headers": [("drop", "")]},
        {"key": "c", "value": "3"},
    ])  # fmt: skip
    with caplog.at_level(logging.INFO, logger="smt.pipeline.runner"):
        result = run_pipeline(spec, spark=kafka_spark)
    assert _IN_THE_JVM in caplog.text
    assert (result.counts.read, result.counts.written, result.counts.filtered) == (3, 2, 1)
    tag, drop = result.stages["tag"], result.stages["drop"]
    assert (tag.records_in, tag.records_out, tag.dropped) == (3, 3, 0)
    assert (drop.records_in, drop.records_out, drop.dropped) == (3, 2, 1)
    written = kafka_broker.consume(output, 2)
    assert [(r.key, r.value, r.headers) for r in written] == [
        (b"a", b"1", (("h", b"x"), ("via", b"smt"))),
        (b"c", b"3", (("via", b"smt"),)),
    ]


def test_a_chain_that_needs_python_takes_the_python_path(kafka_spark, kafka_broker, tmp_path, caplog):
    stem = kafka_broker.unique_topic("jvm-stream-python")
    source, output = kafka_broker.create_topic(f"{stem}-in"), kafka_broker.create_topic(f"{stem}-out")
    spec = _spec(kafka_broker, tmp_path, stem, source, output, **{
        "transforms": "mask", "transforms.mask.type": "MaskField$Value", "transforms.mask.fields": "email",
        "value.converter": "json", "value.converter.schemas.enable": "false",
    })  # fmt: skip
    kafka_broker.produce(source, [{"key": "a", "value": '{"email":"a@x"}'}])
    with caplog.at_level(logging.INFO, logger="smt.pipeline.runner"):
        counts = run_pipeline(spec, spark=kafka_spark).counts
    assert "each micro-batch goes through Python: value.converter JsonConverter decodes" in caplog.text
    assert _IN_THE_JVM not in caplog.text
    assert (counts.read, counts.written) == (1, 1)
    assert [r.value for r in kafka_broker.consume(output, 1)] == [b'{"email":""}']


@pytest.mark.parametrize(
    ("props", "why"),
    [
        ({"transforms": "mask", "transforms.mask.type": "MaskField$Value", "transforms.mask.fields": "email"},
         r"transform 'mask' \(.*MaskField.*\) has no compiled form over whole records"),
        ({"value.converter": "string"}, "value.converter StringConverter decodes each record in Python"),
        ({"errors.tolerance": "all"}, "errors.tolerance=all"),
        ({"sink.writer": "librdkafka"}, "sink: sink.writer=librdkafka .the default. writes from Python"),
        ({"pipeline.compile": "off"}, "pipeline.compile=off"),
    ],
    ids=["a transform", "a converter", "tolerance", "the writer", "turned off"],
)  # fmt: skip
def test_real_time_mode_is_refused_naming_what_needs_python(kafka_spark, kafka_broker, tmp_path, props, why):
    stem = kafka_broker.unique_topic("jvm-stream-refused")
    source, output = kafka_broker.create_topic(f"{stem}-in"), kafka_broker.create_topic(f"{stem}-out")
    spec = _spec(kafka_broker, tmp_path, stem, source, output, **{"streaming.trigger": "realTime", **props})
    with pytest.raises(ConfigError, match=f"streaming.trigger.*realTime runs only JVM operators.*{why}"):
        run_pipeline(spec, spark=kafka_spark)


def test_real_time_mode_writes_records_as_they_come(kafka_spark, kafka_broker, tmp_path):
    stem = kafka_broker.unique_topic("jvm-stream-real-time")
    source, output = kafka_broker.create_topic(f"{stem}-in"), kafka_broker.create_topic(f"{stem}-out")
    spec = _spec(kafka_broker, tmp_path, stem, source, output, **{
        "streaming.trigger": "realTime", "streaming.timeout.ms": "15000",
    })  # fmt: skip
    kafka_broker.produce(source, [{"key": "a", "value": "1"}])
    import threading

    done = threading.Event()
    runner = threading.Thread(target=lambda: (run_pipeline(spec, spark=kafka_spark), done.set()), daemon=True)
    runner.start()
    assert [r.value for r in kafka_broker.consume(output, 1, timeout=60)] == [b"1"]
    kafka_broker.produce(source, [{"key": "b", "value": "2"}])
    assert [r.value for r in kafka_broker.consume(output, 2, timeout=30)] == [b"1", b"2"]
    runner.join(60)
    assert done.is_set()
