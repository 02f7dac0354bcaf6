"""A poison record — nested deeper than anything should be — fails alone; the run passes it and goes on.

Kafka's JsonConverter reads and writes JSON nested up to 1000 levels (Jackson's
``maxNestingDepth``); so do we, byte for byte.  A deeper record is
dead-lettered, its message naming the limit, in batch runs and in streaming
Kafka runs, whose restart must not meet it again.
"""

import json

import pytest

from smt.data.nesting import MAX_NESTING_DEPTH
from tests.reliability.conftest import assert_accounted, context_header

pytestmark = pytest.mark.spark

DEAD_LETTERS = (
    "errors.tolerance=all\nerrors.deadletterqueue.path=dlq\nerrors.deadletterqueue.context.headers.enable=true\n"
)
JSON_MASK = (
    "value.converter=json\nvalue.converter.schemas.enable=false\n"
    "transforms=mask\ntransforms.mask.type=MaskField$Value\ntransforms.mask.fields=secret\n"
)


def nested(depth: int) -> bytes:
    """``{"x":[[…]]}``: ``depth`` containers, the object included."""
    return b'{"x":' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"


GOOD = [json.dumps({"id": n, "secret": "s"}, separators=(",", ":")).encode() for n in range(1000)]
PASSING = [nested(600), nested(MAX_NESTING_DEPTH)]
#: As Kafka writes them: MaskField puts the masked field in (null when absent).
PASSED = [line[:-1] + b',"secret":null}' for line in PASSING]
POISON = [nested(MAX_NESTING_DEPTH + 1), nested(1100), nested(100_000)]
LIMIT_MESSAGE = "is nested more than 1000 levels deep"


def assert_poison_dead_lettered(dead_letters: list[dict]) -> None:
    assert sorted(d["value"].encode() for d in dead_letters) == sorted(POISON)
    for letter in dead_letters:
        assert context_header(letter, "stage") == "VALUE_CONVERTER"
        assert LIMIT_MESSAGE in context_header(letter, "exception.message")


def test_a_batch_run_dead_letters_the_poison_records_and_writes_the_rest(probe, spark):
    lines = GOOD[:500] + PASSING + POISON + GOOD[500:]
    probe.input("records.txt", b"\n".join(lines) + b"\n")
    pipeline = probe.pipeline(
        "source.path=in\nsource.format=text\nsink.path=out\nsink.format=text\n" + JSON_MASK + DEAD_LETTERS
    )
    outcome = probe.run(pipeline)
    assert_accounted(outcome, written_lines=len(GOOD) + len(PASSING), dead_letters=len(POISON))
    written = probe.lines("out")
    assert sorted(line for line in written if line.startswith(b'{"x"')) == sorted(PASSED)
    assert sorted(json.loads(line)["id"] for line in written if b'"id"' in line) == list(range(1000))
    assert_poison_dead_lettered(probe.dead_letters())
    probe.assert_input_unchanged()


def test_without_tolerance_the_run_stops_naming_the_record_stage_and_limit(probe, spark):
    probe.input("records.txt", b"\n".join([GOOD[0], POISON[0]]) + b"\n")
    pipeline = probe.pipeline("source.path=in\nsource.format=text\nsink.path=out\nsink.format=text\n" + JSON_MASK)
    outcome = probe.smt("run", str(pipeline))
    assert outcome.code == 1
    [line] = outcome.error_lines
    assert "Error in VALUE_CONVERTER stage" in line and LIMIT_MESSAGE in line, line
    assert "RecursionError" not in outcome.err


def micro_batch_dead_letters(probe) -> list[dict]:
    """The dead letters a streaming run wrote (``batch-N-part-*`` files)."""
    parts = sorted((probe.root / "dlq").glob("batch-*-part-*"))
    return [json.loads(line) for part in parts for line in part.read_bytes().splitlines()]


@pytest.mark.kafka
def test_a_streaming_kafka_run_passes_the_poison_record_and_its_restart_goes_on(probe, spark, kafka_broker):
    stem = kafka_broker.unique_topic("poison")
    source, sink = kafka_broker.create_topic(f"{stem}-in"), kafka_broker.create_topic(f"{stem}-out")
    first = GOOD[:200] + PASSING + POISON + GOOD[200:400]
    kafka_broker.produce(source, [{"value": value} for value in first])
    servers = kafka_broker.bootstrap_servers
    pipeline = probe.pipeline(
        "mode=streaming\ncheckpoint.location=checkpoint\nstreaming.trigger=availableNow\n"
        f"source=kafka\nsource.topics={source}\nsource.kafka.bootstrap.servers={servers}\n"
        "source.max.offsets.per.trigger=150\n"
        f"sink=kafka\nsink.topic={sink}\nsink.kafka.bootstrap.servers={servers}\n" + JSON_MASK + DEAD_LETTERS
    )
    outcome = probe.run(pipeline)
    assert_accounted(outcome, written_lines=400 + len(PASSING), dead_letters=len(POISON))
    assert_poison_dead_lettered(micro_batch_dead_letters(probe))

    # The restart starts after the poison record: the new records, and nothing again.
    kafka_broker.produce(source, [{"value": value} for value in GOOD[400:500]])
    outcome = probe.run(pipeline)
    assert_accounted(outcome, written_lines=100, dead_letters=0)
    assert len(micro_batch_dead_letters(probe)) == len(POISON)
    values = [record.value for record in kafka_broker.consume(sink)]
    assert sorted(v for v in values if v.startswith(b'{"x"')) == sorted(PASSED)
    assert sorted(json.loads(v)["id"] for v in values if b'"id"' in v) == list(range(500))
