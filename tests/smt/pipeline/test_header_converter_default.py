"""The default header converter is Kafka's, SimpleHeaderConverter (#12)."""

from __future__ import annotations

from smt.batch import RecordBatch
from smt.pipeline.processor import DEAD_LETTER_COLUMN, BatchProcessor
from smt.pipeline.spec import PipelineSpec
from smt.record import Record


def _process(props: dict, records: list[Record]) -> list[dict]:
    spec = PipelineSpec.from_properties({"source": "generator", "sink": "noop", **props})
    out, counts = BatchProcessor.from_spec(spec).process(RecordBatch.from_records(records).to_arrow())
    assert counts.failed == 0
    return [row for row in out.to_pylist() if not row[DEAD_LETTER_COLUMN]]


def test_insert_header_and_header_from_write_strings_without_a_header_converter_set():
    rows = _process(
        {
            "value.converter": "json",
            "value.converter.schemas.enable": "false",
            "transforms": "origin,copy",
            "transforms.origin.type": "org.apache.kafka.connect.transforms.InsertHeader",
            "transforms.origin.header": "origin",
            "transforms.origin.value.literal": "web",
            "transforms.copy.type": "org.apache.kafka.connect.transforms.HeaderFrom$Value",
            "transforms.copy.fields": "id,score",
            "transforms.copy.headers": "id,score",
            "transforms.copy.operation": "copy",
        },
        [Record(topic="t", value=b'{"id": 7, "score": 1.5}', headers=(("raw", b"\xff"),))],
    )
    assert rows[0]["headers"] == [
        {"key": "raw", "value": b"\xff"},
        {"key": "origin", "value": b"web"},
        {"key": "id", "value": b"7"},
        {"key": "score", "value": b"1.5"},
    ]


def test_the_default_is_simple_header_converter():
    spec = PipelineSpec.from_properties({"source": "generator", "sink": "noop"})
    assert type(spec.header_converter).__name__ == "SimpleHeaderConverter"
