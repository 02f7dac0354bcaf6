"""Malformed data, in every format: each bad record fails alone, named, and is dead-lettered; the rest is written."""

import base64
import io
import json
import re

import fastavro
import pytest

from smt.commands.output import EXIT_FAILED
from tests.connectors.file.test_jsonl_lines import MALFORMED
from tests.reliability.conftest import assert_accounted, context_header

pytestmark = pytest.mark.spark

DEAD_LETTERS = (
    "errors.tolerance=all\nerrors.deadletterqueue.path=dlq\nerrors.deadletterqueue.context.headers.enable=true\n"
)


def jsonl_pipeline(probe, extra=DEAD_LETTERS):
    return probe.pipeline(f"source.path=in\nsource.format=jsonl\nsink.path=out\nsink.format=text\n{extra}")


def test_every_malformed_jsonl_line_fails_alone_at_task_poll_naming_file_and_line(probe, spark):
    lines = []
    for n, (line, _) in enumerate(MALFORMED):
        lines += [json.dumps({"value": f"good-{n}"}).encode(), line]
    path = probe.input("records.jsonl", b"\n".join(lines) + b"\n")
    outcome = probe.run(jsonl_pipeline(probe))
    assert_accounted(outcome, written_lines=len(MALFORMED), dead_letters=len(MALFORMED))
    assert sorted(probe.lines("out")) == sorted(f"good-{n}".encode() for n in range(len(MALFORMED)))
    dead = sorted(
        probe.dead_letters(),
        key=lambda d: int(re.search(r"line (\d+)", context_header(d, "exception.message")).group(1)),
    )
    for number, (letter, (line, reason)) in enumerate(zip(dead, MALFORMED), start=1):
        assert context_header(letter, "stage") == "TASK_POLL"
        message = context_header(letter, "exception.message")
        assert re.fullmatch(
            rf"malformed jsonl: line {2 * number} of {re.escape(str(path))}: .*({reason}).*", message
        ), message
        # The dead letter is the line as read (bytes that are not UTF-8 come back as base64).
        assert letter.get("value", "").encode() == line or base64.b64decode(letter.get("value_base64", "")) == line
    probe.assert_input_unchanged()


def test_an_invalid_base64_field_stops_only_its_line_and_names_it(probe, spark):
    probe.input("a.jsonl", b'{"value": "ok"}\n{"value_base64": "AAA"}\n{"value": "fine"}\n')
    outcome = probe.run(jsonl_pipeline(probe, extra=""))
    assert outcome.code == EXIT_FAILED
    [line] = outcome.error_lines
    assert "Error in TASK_POLL stage" in line
    assert re.search(
        r"SourceRecordError: malformed jsonl: line 2 of .*a\.jsonl: value_base64 is not valid "
        r"base64",
        line,
    ), line
    assert probe.lines("out") == []
    probe.assert_input_unchanged()


def test_a_file_of_json_values_read_as_jsonl_says_which_format_it_wants(probe, spark):
    probe.input("events.json", '{"user": "ann", "amount": 3}\n{"user": "bob", "amount": 4}\n')
    outcome = probe.run(jsonl_pipeline(probe, extra=""))
    assert outcome.code == EXIT_FAILED
    assert (
        "line 1 of" in outcome.err
        and (
            "line has none of topic/key/value/headers: is this a file of values? use source.format=text with "
            "value.converter=json"
        )
        in outcome.err
    )


#: Text lines a JSON value converter cannot read: each is dead-lettered at VALUE_CONVERTER.
BAD_JSON_VALUES = [
    b'{"user": "cut',
    b"\xff\xfe not utf-8",
    b'{"a": "nul\x00byte"}',
    b"[" * 100_000,
    b'{"huge": "' + b"x" * 5_000_000,
]


def test_text_lines_that_are_not_json_values_are_dead_lettered_at_the_converter(probe, spark):
    good = [json.dumps({"user": f"u{n}"}).encode() for n in range(5)]
    probe.input("events.txt", b"\n".join(good + BAD_JSON_VALUES) + b"\n")
    pipeline = probe.pipeline(
        "source.path=in\nsource.format=text\nsink.path=out\nsink.format=text\n"
        "value.converter=json\nvalue.converter.schemas.enable=false\n"
        "transforms=stamp\ntransforms.stamp.type=InsertField$Value\n"
        "transforms.stamp.static.field=seen\ntransforms.stamp.static.value=yes\n" + DEAD_LETTERS
    )
    outcome = probe.run(pipeline)
    assert_accounted(outcome, written_lines=len(good), dead_letters=len(BAD_JSON_VALUES))
    assert sorted(json.loads(line)["seen"] for line in probe.lines("out")) == ["yes"] * len(good)
    stages = {context_header(d, "stage") for d in probe.dead_letters()}
    assert stages == {"VALUE_CONVERTER"}
    probe.assert_input_unchanged()


def avro_file(records):
    buffer = io.BytesIO()
    fastavro.writer(
        buffer,
        fastavro.parse_schema({"type": "record", "name": "R", "fields": [{"name": "value", "type": "bytes"}]}),
        records,
    )
    return buffer.getvalue()


@pytest.mark.parametrize(
    "fmt, name, content, message",
    [
        ("avro", "bad.avro", b"Obj\x01 definitely not avro", r"corrupt Avro file '.*bad\.avro'"),
        (
            "avro",
            "cut.avro",
            avro_file([{"value": b"x" * 100} for _ in range(50)])[:-40],
            r"corrupt Avro file '.*cut\.avro'",
        ),
        ("parquet", "bad.parquet", b"PAR1 not parquet PAR1", r"cannot read Parquet files at .*"),
    ],
)
def test_a_corrupt_file_fails_the_run_naming_it_and_writes_nothing(probe, spark, fmt, name, content, message):
    probe.input(name, content)
    pipeline = probe.pipeline(f"source.path=in\nsource.format={fmt}\nsink.path=out\nsink.format=jsonl\n{DEAD_LETTERS}")
    outcome = probe.run(pipeline)
    assert outcome.code == EXIT_FAILED
    assert re.search(r"source\.path: " + message, outcome.err), outcome.err
    assert probe.lines("out") == [] and probe.lines("dlq") == []
    probe.assert_input_unchanged()


def test_a_line_longer_than_line_max_bytes_fails_the_run_at_once_naming_the_file_the_line_and_the_key(probe, spark):
    """A line of gigabytes used to be read whole (and copied per chunk) before Spark refused it, minutes later,
    naming neither file nor setting; now reading stops once the bound is passed."""
    path = probe.input("long.txt", b'{"a":1}\n{"a":2}\n' + b"x" * 3_000_000 + b"\n")
    pipeline = probe.pipeline(
        "source.path=in\nsource.format=text\nsource.line.max.bytes=1000000\nsink.path=out\nsink.format=text\n"
    )
    outcome = probe.run(pipeline)
    assert outcome.code != 0
    assert f"{path}: line 3 is longer than 1,000,000 bytes (source.line.max.bytes)" in outcome.err
