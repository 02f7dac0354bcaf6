"""Records the sink cannot write fail at TASK_PUT, one at a time, through the error policy."""

import pytest
from pyspark import cloudpickle

from connectors.file import FileSink
from connectors.kafka import KafkaSink
from converters.bytearray import ByteArrayConverter
from converters.string import StringConverter
from smt import Record, RecordBatch, StageError
from smt.chain import TransformChain
from smt.error_handling import ErrorPolicy
from smt.pipeline import PipelineSpec
from smt.pipeline.processor import DEAD_LETTER_COLUMN, BatchProcessor
from smt.plugin import PluginContext
from tests.smt.sample_plugins import sample_plugins

#: Split "a|b" into two records, append "!", drop "gone!".
CHAIN = {
    "transforms": "split,a,drop",
    "transforms.split.type": "Split",
    "transforms.a.type": "AppendSuffix",
    "transforms.a.suffix": "!",
    "transforms.drop.type": "DropValue",
    "transforms.drop.value": "gone!",
}

#: An input that exists (the spec refuses one that does not); these tests never read it.
UNREAD_INPUT = __file__


def configured(plugin, **configs):
    plugin.configure({k.replace("__", "."): v for k, v in configs.items()}, PluginContext("sink", "sink."))
    return plugin


def processor(policy, sink, output_fields=None):
    raw = configured(ByteArrayConverter())
    chain = TransformChain.from_properties(CHAIN, plugins=sample_plugins())
    return BatchProcessor(
        chain, raw, configured(StringConverter()), raw, policy, output_fields=output_fields, sink=sink
    )


def input_batch(values):
    records = [
        Record(topic="in", partition=0, offset=i, timestamp=1000 + i, key=b"k%d" % i, value=v, headers=[("h", b"x")])
        for i, v in enumerate(values)
    ]
    return RecordBatch.from_records(records).to_arrow()


def text_sink():
    return configured(FileSink(), path="/unused", format="text")


def kafka_sink(**configs):
    return configured(KafkaSink(), kafka__bootstrap__servers="127.0.0.1:9092", topic="out", **configs)


def test_tolerance_none_stops_at_task_put_naming_the_sink_and_the_record():
    text = processor(ErrorPolicy(), text_sink(), output_fields=("value",))
    with pytest.raises(
        StageError,
        match=r"^Error in TASK_PUT stage with connectors\.file\.sink\.FileSink on record "
        r"topic='in' partition=0 offset=1: SinkRecordError: the value has a line "
        r"break at byte 3; the text format writes one value per line",
    ):
        text.process(input_batch([b"fine", b"two\nlines"]))


def test_tolerance_all_dead_letters_the_original_input_record_with_task_put_context():
    policy = ErrorPolicy(tolerance="all", dlq_path="/unused", context_headers=True, connector_name="orders")
    kafka = processor(policy, kafka_sink(kafka__max__request__size="200"))
    # Row 1 splits into a small and an oversized record: the input record fails as a whole.
    values = [b"ok", b"small|" + b"x" * 150, b"gone", b"boom", b"y" * 100]
    out, counts = kafka.process(input_batch(values))
    rows = out.to_pylist()
    assert [r["value"] for r in rows if not r[DEAD_LETTER_COLUMN]] == [b"ok!", b"y" * 100 + b"!"]
    dead = [r for r in rows if r[DEAD_LETTER_COLUMN]]
    assert [(r["offset"], r["key"], r["value"]) for r in dead] == [(1, b"k1", values[1]), (3, b"k3", b"boom")]
    assert dead[0]["headers"][0] == {"key": "h", "value": b"x"}
    context = {h["key"]: h["value"] for h in dead[0]["headers"]}
    assert context["__connect.errors.stage"] == b"TASK_PUT"
    assert context["__connect.errors.class.name"] == b"connectors.kafka.sink.KafkaSink"
    assert context["__connect.errors.exception.class.name"] == b"connectors.kafka._record_checks.RecordTooLargeError"
    # 82 overhead + key b"k1" (1 + 2) + value of 151 bytes (2 + 151) + 1 header count + header h=x (2 + 2)
    assert context["__connect.errors.exception.message"] == (
        b"the record is 243 bytes when serialized (Kafka producer's estimate: key, value and headers plus 82 bytes "
        b"of overhead), larger than 200, the value of sink.kafka.max.request.size"
    )
    assert context["__connect.errors.offset"] == b"1"
    assert {h["key"]: h["value"] for h in dead[1]["headers"]}["__connect.errors.stage"] == b"TRANSFORMATION"
    assert (counts.read, counts.written, counts.filtered, counts.failed, counts.dead_lettered) == (5, 2, 1, 2, 2)
    assert counts.read == counts.written + counts.filtered + counts.dead_lettered
    assert counts.output_rows == 2


def test_without_a_dead_letter_queue_put_failures_are_skipped_and_counted():
    text = processor(ErrorPolicy(tolerance="all"), text_sink(), output_fields=("value",))
    out, counts = text.process(input_batch([b"a\r", b"b"]))
    assert out.to_pylist() == [{"value": b"b!", DEAD_LETTER_COLUMN: False}]
    assert (counts.read, counts.written, counts.failed, counts.dead_lettered) == (2, 1, 1, 0)


def test_a_sink_without_checks_writes_everything():
    jsonl = processor(ErrorPolicy(), configured(FileSink(), path="/unused", format="jsonl"))
    out, counts = jsonl.process(input_batch([b"a\nb"]))
    assert [r["value"] for r in out.to_pylist()] == [b"a\nb!"]
    assert counts.written == 1


def test_the_processor_gets_the_sink_from_the_spec_and_ships_it_to_executors():
    spec = PipelineSpec.from_properties({
        "source": "file", "source.path": UNREAD_INPUT, "sink": "kafka",
        "sink.kafka.bootstrap.servers": "127.0.0.1:9092", "sink.kafka.max.request.size": "100",
        "errors.tolerance": "all", "errors.deadletterqueue.path": "/unused-dlq",
    })  # fmt: skip
    built = BatchProcessor.from_spec(spec)
    assert built.record_checks is spec.sink_roles.record_checks is spec.sink  # its checks are the sink's
    # Spark pickles the processor (with cloudpickle) into every task.
    shipped = cloudpickle.loads(cloudpickle.dumps(built))
    out, counts = shipped.process(input_batch([b"v" * 100]))
    assert [r["value"] for r in out.to_pylist() if r[DEAD_LETTER_COLUMN]] == [b"v" * 100]
    assert (counts.failed, counts.dead_lettered) == (1, 1)


def kafka_pipeline(**extra):
    return PipelineSpec.from_properties({
        "source": "file", "source.path": UNREAD_INPUT, "sink": "kafka",
        "sink.kafka.bootstrap.servers": "127.0.0.1:9092", "sink.topic": "out",
        "value.converter": "string", **CHAIN,
        "errors.tolerance": "all", "errors.deadletterqueue.topic.name": "dlq",
        **{k.replace("__", "."): v for k, v in extra.items()},
    }, plugins=sample_plugins())  # fmt: skip


def test_a_dead_letter_the_queue_cannot_take_is_logged_and_dropped(caplog):
    # The dead-letter queue reuses the sink's Kafka settings, limit included.
    spec = kafka_pipeline(sink__kafka__max__request__size="200")
    out, counts = BatchProcessor.from_spec(spec).process(input_batch([b"x" * 150, b"boom", b"ok"]))
    rows = out.to_pylist()
    assert [r["value"] for r in rows if not r[DEAD_LETTER_COLUMN]] == [b"ok!"]
    assert [r["value"] for r in rows if r[DEAD_LETTER_COLUMN]] == [b"boom"]
    assert (counts.read, counts.written, counts.failed, counts.dead_lettered) == (3, 1, 2, 1)
    [logged] = [r.getMessage() for r in caplog.records if r.name == "smt.errors"]
    # The dead letter is the input record: 82 + key (1 + 2) + value (2 + 150) + 1 + header h=x (2 + 2).
    assert logged.startswith(
        "Could not write a failed record to the dead-letter queue, so it is dropped (the "
        "record is 242 bytes when serialized"
    )
    assert (
        "larger than 200, the value of errors.deadletterqueue.kafka.max.request.size). Error in TASK_PUT "
        "stage with connectors.kafka.sink.KafkaSink on record topic='in' partition=0 offset=0" in logged
    )


def test_the_dead_letter_queue_may_have_its_own_limit():
    spec = kafka_pipeline(
        sink__kafka__max__request__size="200", errors__deadletterqueue__kafka__bootstrap__servers="127.0.0.1:9092"
    )
    out, counts = BatchProcessor.from_spec(spec).process(input_batch([b"x" * 150]))
    assert [r["value"] for r in out.to_pylist() if r[DEAD_LETTER_COLUMN]] == [b"x" * 150]
    assert (counts.failed, counts.dead_lettered) == (1, 1)
