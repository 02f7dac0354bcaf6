"""A streaming Kafka → Kafka run whose records stay in the JVM (smt.pipeline.jvm_stream), Spark's real-time mode."""

from __future__ import annotations

import logging

import pytest

from smt.errors import ConfigError, DataError
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


def test_a_batch_a_killed_run_left_uncommitted_is_planned_anew_and_counted(kafka_spark, kafka_broker, tmp_path, caplog):
    """A run killed after writing a micro-batch, before committing it: the next run reads its records again
    (at least once) and counts them, as Spark 4.1.0-4.1.2 would not for a replayed batch (SPARK-55271)."""
    stem = kafka_broker.unique_topic("jvm-stream-killed")
    source, output = kafka_broker.create_topic(f"{stem}-in"), kafka_broker.create_topic(f"{stem}-out")
    spec = _spec(kafka_broker, tmp_path, stem, source, output)
    kafka_broker.produce(source, [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}])
    assert run_pipeline(spec, spark=kafka_spark).counts.written == 2
    commits = tmp_path / "checkpoint" / "commits"
    last = max(int(p.name) for p in commits.iterdir() if p.name.isdigit())
    for name in (str(last), f".{last}.crc"):  # as if killed between the write and the commit
        (commits / name).unlink()

    kafka_broker.produce(source, [{"key": "c", "value": "3"}])
    with caplog.at_level(logging.INFO, logger="smt.pipeline.runner"):
        again = run_pipeline(spec, spark=kafka_spark).counts
    assert (again.read, again.written, again.failed) == (3, 3, 0)
    assert f"micro-batch {last} was left uncommitted by the last run: it is planned anew" in caplog.text
    assert sorted(r.value for r in kafka_broker.consume(output, 5)) == [b"1", b"1", b"2", b"2", b"3"]


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


#: The issue's chain (#32): schemaless JSON keys and values, a field masked, a static field inserted.
_JSON_CHAIN = {
    "key.converter": "json", "key.converter.schemas.enable": "false",
    "value.converter": "json", "value.converter.schemas.enable": "false",
    "transforms": "mask,static",
    "transforms.mask.type": "MaskField$Value", "transforms.mask.fields": "email",
    "transforms.static.type": "InsertField$Value", "transforms.static.static.field": "source",
    "transforms.static.static.value": "smt", "transforms.static.partition.field": "p",
}  # fmt: skip


def test_schemaless_json_records_are_masked_and_inserted_in_the_jvm(kafka_spark, kafka_broker, tmp_path, caplog):
    stem = kafka_broker.unique_topic("jvm-stream-json")
    source, output = kafka_broker.create_topic(f"{stem}-in"), kafka_broker.create_topic(f"{stem}-out")
    spec = _spec(kafka_broker, tmp_path, stem, source, output, **_JSON_CHAIN)
    kafka_broker.produce(source, [
        {"key": '{"id":1}', "value": '{"id":1,"email":"a@x.io","ok":true,"price":12.5,"total":100.0}'},
        {"key": '{"id": 2}', "value": '{"source":"app", "id":2}'},  # spaced: written compact
        {"key": None, "value": None},  # a tombstone passes through
    ])  # fmt: skip
    with caplog.at_level(logging.INFO, logger="smt.pipeline.runner"):
        counts = run_pipeline(spec, spark=kafka_spark).counts
    assert _IN_THE_JVM in caplog.text
    assert "through Python" not in caplog.text
    assert (counts.read, counts.written) == (3, 3)
    assert [(r.key, r.value) for r in kafka_broker.consume(output, 3)] == [
        (b'{"id":1}', b'{"id":1,"email":"","ok":true,"price":12.5,"total":100.0,"p":0,"source":"smt"}'),
        (b'{"id":2}', b'{"source":"smt","id":2,"email":null,"p":0}'),
        (None, None),
    ]


def test_a_record_the_jvm_cannot_vouch_for_sends_the_run_to_python(kafka_spark, kafka_broker, tmp_path, caplog):
    """A decimal with a trailing zero (which orjson writes without) fails the JVM query's micro-batch; the run
    goes on in Python from that micro-batch, and every record is written, the float as Python writes it."""
    stem = kafka_broker.unique_topic("jvm-stream-unvouched")
    source, output = kafka_broker.create_topic(f"{stem}-in"), kafka_broker.create_topic(f"{stem}-out")
    spec = _spec(kafka_broker, tmp_path, stem, source, output, **_JSON_CHAIN)
    values = ['{"id":1,"email":"a"}', '{"id":2,"email":"b","score":1.50}', '{"id":3}']
    kafka_broker.produce(source, [{"key": None, "value": v} for v in values])
    with caplog.at_level(logging.INFO, logger="smt.pipeline.runner"):
        counts = run_pipeline(spec, spark=kafka_spark).counts
    assert _IN_THE_JVM in caplog.text
    assert f"record {source}-0@1 is not one Spark SQL reads exactly" in caplog.text
    assert "the run goes on with each micro-batch through Python" in caplog.text
    assert (counts.read, counts.written, counts.failed) == (3, 3, 0)  # the Python run's: the JVM's batch failed
    written = {r.value for r in kafka_broker.consume(output, 3)}
    assert written == {
        b'{"id":1,"email":"","p":0,"source":"smt"}',
        b'{"id":2,"email":"","score":1.5,"p":0,"source":"smt"}',
        b'{"id":3,"email":null,"p":0,"source":"smt"}',
    }


def test_a_chain_that_needs_python_takes_the_python_path(kafka_spark, kafka_broker, tmp_path, caplog):
    stem = kafka_broker.unique_topic("jvm-stream-python")
    source, output = kafka_broker.create_topic(f"{stem}-in"), kafka_broker.create_topic(f"{stem}-out")
    spec = _spec(kafka_broker, tmp_path, stem, source, output, **{
        "transforms": "mask", "transforms.mask.type": "MaskField$Value", "transforms.mask.fields": "email",
        "value.converter": "json", "value.converter.schemas.enable": "true",
    })  # fmt: skip
    value = '{"schema":{"type":"struct","fields":[{"field":"email","type":"string"}]},"payload":{"email":"a@x"}}'
    kafka_broker.produce(source, [{"key": "a", "value": value}])
    with caplog.at_level(logging.INFO, logger="smt.pipeline.runner"):
        counts = run_pipeline(spec, spark=kafka_spark).counts
    assert "each micro-batch goes through Python: value.converter: schemas.enable=true" in caplog.text
    assert _IN_THE_JVM not in caplog.text
    assert (counts.read, counts.written) == (1, 1)
    assert [r.value for r in kafka_broker.consume(output, 1)][0].endswith(b'"payload":{"email":""}}')


def test_real_time_mode_fails_on_a_record_the_jvm_cannot_vouch_for(kafka_spark, kafka_broker, tmp_path):
    stem = kafka_broker.unique_topic("jvm-stream-real-time-unvouched")
    source, output = kafka_broker.create_topic(f"{stem}-in"), kafka_broker.create_topic(f"{stem}-out")
    props = {**_JSON_CHAIN, "streaming.trigger": "realTime", "streaming.timeout.ms": "60000"}
    spec = _spec(kafka_broker, tmp_path, stem, source, output, **props)
    kafka_broker.produce(source, [{"key": None, "value": '{"email":"a","score":1e3}'}])
    with pytest.raises(
        DataError, match=f"record {source}-0@0 is not one Spark SQL reads exactly.*realTime runs no Python"
    ):
        run_pipeline(spec, spark=kafka_spark)


@pytest.mark.parametrize(
    ("props", "why"),
    [
        ({"transforms": "hoist", "transforms.hoist.type": "HoistField$Value", "transforms.hoist.field": "v"},
         r"transform 'hoist' \(.*HoistField.*\) has no compiled form over whole records"),
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
