"""mode=streaming on the shared local Spark: triggers, timeout, exactly-once files, checkpoint ownership."""

import json
import os

import pytest

from smt.errors import ConfigError
from smt.pipeline import PipelineSpec, run_pipeline
from smt.pipeline.streaming import FINGERPRINT_FILE, CheckpointMismatch, describe_changes, wait_s
from smt.plugins import load_plugins
from tests.connectors.sample_connectors import ThirdPartyPlugin

pytestmark = pytest.mark.spark


def jsonl_values(directory):
    values = []
    if not os.path.isdir(directory):  # the sink creates it with its first committed micro-batch
        return values
    for name in sorted(os.listdir(directory)):
        if not name.startswith(("_", ".")):
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                values.extend(json.loads(line).get("value") for line in handle)
    return sorted(values)


def committed_batches(out):
    """The micro-batches committed in ``out``, by the one query that wrote there."""
    [query] = [p for p in (out / "_smt_commits").iterdir() if not p.name.startswith(".")]
    return sorted(p.name for p in query.iterdir() if not p.name.startswith("."))


def write_input(directory, name, lines):
    directory.mkdir(exist_ok=True)
    (directory / name).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def streaming_spec(tmp_path, **extra):
    props = {
        "mode": "streaming",
        "checkpoint.location": str(tmp_path / "checkpoint"),
        "streaming.trigger": "availableNow",
        "source": "file",
        "source.path": str(tmp_path / "in"),
        "source.format": "text",
        "source.max.files.per.trigger": "1",
        "sink": "file",
        "sink.path": str(tmp_path / "out"),
        "sink.format": "jsonl",
        "value.converter": "string",
        "header.converter": "string",
        "transforms": "tag",
        "transforms.tag.type": "InsertHeader",
        "transforms.tag.header": "via",
        "transforms.tag.value.literal": "smt",
    }
    if "source" in extra:  # another source: the file source's keys would be unknown to it
        props = {k: v for k, v in props.items() if not k.startswith("source.")}
    props.update({k.replace("__", "."): v for k, v in extra.items()})
    return PipelineSpec.from_properties(props)


def test_available_now_processes_every_file_once_across_restarts_and_beside_another_query(spark, tmp_path):
    write_input(tmp_path / "in", "a.txt", ["a1", "a2"])
    write_input(tmp_path / "in", "b.txt", ["b1"])
    result = run_pipeline(streaming_spec(tmp_path), spark=spark)
    assert jsonl_values(tmp_path / "out") == ["a1", "a2", "b1"]
    assert result.counts.read == 3
    # One micro-batch per file, each committed once.
    assert committed_batches(tmp_path / "out") == ["0", "1"]

    write_input(tmp_path / "in", "c.txt", ["c1", "c2"])
    run_pipeline(streaming_spec(tmp_path), spark=spark)
    assert jsonl_values(tmp_path / "out") == ["a1", "a2", "b1", "c1", "c2"]

    # Another query, with its own checkpoint, into the same folder: its batch 0 is its own.
    write_input(tmp_path / "other", "d.txt", ["d1"])
    other = streaming_spec(
        tmp_path, checkpoint__location=str(tmp_path / "other-checkpoint"), source__path=str(tmp_path / "other")
    )
    run_pipeline(other, spark=spark)
    assert jsonl_values(tmp_path / "out") == ["a1", "a2", "b1", "c1", "c2", "d1"]


def test_timeout_stops_a_processing_time_query(spark, tmp_path):
    # An endless source: only the timeout can end the run. How far it gets
    # depends on the machine, so the test asserts what holds at any speed.
    spec = streaming_spec(
        tmp_path,
        source="generator",
        source__records="0",
        source__rows__per__batch="10",
        streaming__trigger="processingTime",
        streaming__timeout__ms="8000",
        value__converter="bytearray",
    )
    result = run_pipeline(spec, spark=spark)
    ids = sorted(json.loads(v)["event_id"] for v in jsonl_values(tmp_path / "out"))
    assert ids == list(range(len(ids)))  # whole micro-batches, in order, none twice
    # A micro-batch cut short by the stop may be counted but not committed.
    assert result.counts.read >= len(ids)


def test_a_wait_cut_short_by_the_timeout_is_never_below_a_millisecond():
    """Spark refuses awaitTermination(0 ms) ("Timeout has to be positive"): a deadline a few microseconds
    away, or just passed while the loop checked it, still waits the one millisecond Spark counts."""
    assert wait_s(2.0, None, 100.0) == 2.0
    assert wait_s(2.0, 101.0, 100.0) == 1.0
    assert wait_s(2.0, 200.0, 100.0) == 2.0
    assert wait_s(2.0, 100.0004, 100.0) == 0.001
    assert wait_s(2.0, 99.9999, 100.0) == 0.001


def test_available_now_generator_ends_after_the_last_record(spark, tmp_path):
    spec = streaming_spec(tmp_path, source="generator", source__records="25", value__converter="bytearray")
    result = run_pipeline(spec, spark=spark)
    values = [json.loads(v) for v in jsonl_values(tmp_path / "out")]
    assert sorted(v["event_id"] for v in values) == list(range(25))
    assert result.counts.read == 25


def test_a_checkpoint_of_another_source_is_refused_naming_the_change(spark, tmp_path):
    write_input(tmp_path / "in", "a.txt", ["a1"])
    write_input(tmp_path / "elsewhere", "e.txt", ["e1"])
    moved = streaming_spec(tmp_path, source__path=str(tmp_path / "elsewhere"))  # built before the checkpoint
    run_pipeline(streaming_spec(tmp_path), spark=spark)
    # Before Spark: `smt validate` and `smt run` build the spec first.
    with pytest.raises(
        ConfigError,
        match=r"checkpoint\.location: '.*checkpoint' holds the offsets of another source or sink "
        r"\(source\.path changed '.*in' → '.*elsewhere'\)",
    ):
        streaming_spec(tmp_path, source__path=str(tmp_path / "elsewhere"))
    # And when the query starts.
    with pytest.raises(CheckpointMismatch, match=r"holds the offsets of another source or sink \(source\.path"):
        run_pipeline(moved, spark=spark)
    assert jsonl_values(tmp_path / "out") == ["a1"]


def test_transforms_may_change_and_the_query_carries_on_from_its_offsets(spark, tmp_path, caplog):
    write_input(tmp_path / "in", "a.txt", ["a1"])
    run_pipeline(streaming_spec(tmp_path), spark=spark)
    write_input(tmp_path / "in", "b.txt", ["b1"])

    changed = streaming_spec(tmp_path, transforms__tag__header="other", errors__tolerance="all")
    with caplog.at_level("WARNING", logger="smt.pipeline.streaming"):
        run_pipeline(changed, spark=spark)

    out = tmp_path / "out"
    files = [f for f in out.iterdir() if f.is_file() and not f.name.startswith(("_", "."))]
    records = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    assert sorted((r["value"], [h["key"] for h in r["headers"]]) for r in records) == [
        ("a1", ["via"]),
        ("b1", ["other"]),  # only the new file: the stored offsets still held
    ]
    assert "errors.tolerance added; transforms.tag.header changed 'via' → 'other'" in caplog.text
    stored = json.loads((tmp_path / "checkpoint" / FINGERPRINT_FILE).read_text())
    assert stored["transforms.tag.header"] == "other"


def test_tuning_keys_may_change_between_runs(spark, tmp_path):
    write_input(tmp_path / "in", "a.txt", ["a1"])
    run_pipeline(streaming_spec(tmp_path), spark=spark)
    write_input(tmp_path / "in", "b.txt", ["b1"])
    run_pipeline(
        streaming_spec(tmp_path, source__max__files__per__trigger="5", spark__sql__shuffle__partitions="3"), spark=spark
    )
    assert jsonl_values(tmp_path / "out") == ["a1", "b1"]


def test_a_foreign_checkpoint_is_refused(tmp_path):
    write_input(tmp_path / "in", "a.txt", ["a1"])
    (tmp_path / "checkpoint" / "offsets").mkdir(parents=True)
    with pytest.raises(ConfigError, match=rf"checkpoint\.location: '.*' is not empty and has no {FINGERPRINT_FILE}"):
        streaming_spec(tmp_path)


def test_a_checkpoint_that_never_ran_a_batch_is_claimed_anew(spark, tmp_path):
    (tmp_path / "checkpoint").mkdir()
    (tmp_path / "checkpoint" / FINGERPRINT_FILE).write_text('{"source": "somewhere-else"}')
    write_input(tmp_path / "in", "a.txt", ["a1"])
    run_pipeline(streaming_spec(tmp_path), spark=spark)
    assert jsonl_values(tmp_path / "out") == ["a1"]
    assert json.loads((tmp_path / "checkpoint" / FINGERPRINT_FILE).read_text())["source"] == "file"


def test_a_source_without_streaming_is_refused(spark, tmp_path):
    plugins = load_plugins(entry_points=False, extra_plugins=[ThirdPartyPlugin()])
    spec = PipelineSpec.from_properties(
        {
            "mode": "streaming",
            "checkpoint.location": str(tmp_path / "checkpoint"),
            "source": "countdown",
            "sink": "console",
        },
        plugins=plugins,
    )
    with pytest.raises(ConfigError, match=r"mode: source 'countdown' cannot run in streaming mode"):
        run_pipeline(spec, spark=spark)


def test_bad_streaming_keys_are_named(spark, tmp_path):
    write_input(tmp_path / "in", "a.txt", ["a1"])
    with pytest.raises(ConfigError, match=r"streaming\.trigger: .*processingTime"):
        run_pipeline(streaming_spec(tmp_path, streaming__trigger="sometimes"), spark=spark)


def test_changes_are_described_key_by_key():
    assert describe_changes({"a": "1", "b": "2"}, {"a": "1", "b": "3", "c": "4"}) == "b changed '2' → '3'; c added"
    assert describe_changes({"x": "1"}, {}) == "x removed"


def test_a_kafka_sinks_checkpoint_is_bound_to_its_cluster_topic_and_transactions_not_its_tuning():
    from connectors.file import FileSource
    from connectors.kafka import KafkaSink
    from smt.pipeline.streaming import checkpoint_keys

    props = {
        "source": "file",
        "source.path": "in",
        "sink": "kafka",
        "sink.topic": "out",
        "sink.kafka.bootstrap.servers": "127.0.0.1:9092",
        "sink.kafka.linger.ms": "5",
        "sink.delivery.guarantee": "exactly_once",
        "sink.transactional.id.prefix": "orders",
    }
    keys = checkpoint_keys(props, FileSource, KafkaSink)
    assert {"sink.topic", "sink.kafka.bootstrap.servers", "sink.transactional.id.prefix"} <= keys
    assert "sink.kafka.linger.ms" not in keys


def test_the_checkpoints_fingerprint_holds_no_secret_and_an_older_ones_are_scrubbed(spark, tmp_path):
    from smt.pipeline.streaming import claim_checkpoint
    from smt.secret_values import SECRET_SHOWN

    props = {"source": "file", "sink": "table", "sink.option.password": "hunter2-literal",
             "sink.option.url": "jdbc:postgresql://bob:pw-in-url@127.0.0.1/db?password=pw-in-query",
             "source.kafka.sasl.jaas.config": 'PlainLoginModule required password="jaas-pw";'}  # fmt: skip
    checkpoint = tmp_path / "checkpoint"
    claim_checkpoint(spark, str(checkpoint), props, frozenset({"source", "sink", "sink.option.url"}))
    text = (checkpoint / FINGERPRINT_FILE).read_text()
    for secret in ("hunter2-literal", "pw-in-url", "pw-in-query", "jaas-pw", "bob:"):
        assert secret not in text
    assert json.loads(text)["sink.option.password"] == SECRET_SHOWN

    # A checkpoint an older version wrote, with the secrets in clear and a batch run: accepted as the same
    # pipeline (the identity keys compare without their secrets), and rewritten without them.
    (checkpoint / "offsets").mkdir()
    (checkpoint / FINGERPRINT_FILE).write_text(json.dumps({k: str(v) for k, v in props.items()}))
    (checkpoint / f".{FINGERPRINT_FILE}.crc").unlink(missing_ok=True)  # Hadoop's checksum of the file it wrote
    claim_checkpoint(spark, str(checkpoint), props, frozenset({"source", "sink", "sink.option.url"}))
    assert "hunter2-literal" not in (checkpoint / FINGERPRINT_FILE).read_text()
    assert "pw-in-url" not in (checkpoint / FINGERPRINT_FILE).read_text()
