"""jsonl lines into records: every malformed line fails alone, named by file and line number."""

import pyarrow as pa
import pytest

from connectors.file._jsonl_lines import parse_jsonl_lines
from connectors.file.formats import FORMATS, ReadOptions
from smt.batch import KAFKA_ARROW_SCHEMA
from smt.connector import SOURCE_ERROR_COLUMN
from tests.connectors.file.test_formats import GOLDEN_JSONL, RECORDS

ERROR = "_error"


def parse(lines, where="/data/in.jsonl"):
    batch = parse_jsonl_lines(pa.array(lines, pa.binary()), "default", where, lambda row: row + 1, ERROR)
    assert batch.schema == KAFKA_ARROW_SCHEMA.append(pa.field(ERROR, pa.string()))
    return batch.to_pylist()


#: (line, why it is malformed): each fails alone, whatever its neighbours.
MALFORMED = [
    (b'{"value": "cut', r"Invalid encoding in string|Missing a closing quotation mark"),
    (b"null", "not a JSON object"),
    (b"[1, 2]", "not a JSON object"),
    (b'"text"', "not a JSON object"),
    (b"42", "not a JSON object"),
    (b'{"value": "a"} {"value": "b"}', "more than one JSON value on the line"),
    (b'{"value": "\xff"}', r"not valid UTF-8 \(byte 11\)"),
    (b'{"value": 1}', "'value' must be a string, not a number"),
    (b'{"partition": "3", "value": "x"}', "'partition' must be a number, not a string"),
    (b'{"partition": 3000000000, "value": "x"}', "3000000000 is not an int32"),
    (b'{"timestamp": 1.5, "value": "x"}', "1.5 is not an int64"),
    (b'{"timestamp": 9999999999999999, "value": "x"}', "timestamp 9999999999999999 is outside years 1-9999"),
    (b'{"value_base64": "abc"}', r"value_base64 is not valid base64 \(Incorrect padding\)"),
    (b'{"key_base64": "a"}', r"key_base64 is not valid base64"),
    (b'{"value_base64": "!!!!"}', r"value_base64 is not valid base64"),
    (b'{"value": "a", "value_base64": "YQ=="}', "has both value and value_base64"),
    (b'{"value": "a", "value": "b"}', "was specified twice"),
    (b'{"headers": [null]}', "header 1 has no key"),
    (b'{"headers": [{"key": "a", "value": "1"}, {"value": "v"}]}', "header 2 has no key"),
    (b'{"headers": [{"key": "h", "value_base64": "%%"}]}', "header value_base64 is not valid base64"),
    (b'{"headers": {"key": "h"}}', "'headers' must be a array, not a object"),
    (
        b'{"id": 7, "name": "an event"}',
        "line has none of topic/key/value/headers: is this a file of values\\? "
        "use source.format=text with value.converter=json",
    ),
    (b"{}", "line has none of topic/key/value/headers"),
]


@pytest.mark.parametrize("line, reason", MALFORMED, ids=[m[1][:40] for m in MALFORMED])
def test_a_malformed_line_fails_alone_with_file_line_and_reason(line, reason):
    import re

    rows = parse([b'{"value": "before"}', line, b'{"value": "after"}'])
    assert [r["value"] for r in rows] == [b"before", line, b"after"]
    assert rows[0][ERROR] is None and rows[2][ERROR] is None
    assert re.fullmatch(rf"malformed jsonl: line 2 of /data/in\.jsonl: .*({reason}).*", rows[1][ERROR]), rows[1][ERROR]
    # The failed line is the record as read: the source's topic, nothing else.
    assert (rows[1]["topic"], rows[1]["key"], rows[1]["headers"]) == ("default", None, [])


def test_every_line_of_a_batch_can_fail_and_each_is_named():
    lines = [line for line, _ in MALFORMED]
    rows = parse(lines)
    assert len(rows) == len(lines)
    assert [r[ERROR].split(": ")[1] for r in rows] == [f"line {n} of /data/in.jsonl" for n in range(1, len(lines) + 1)]


def test_blank_lines_are_not_records_but_count_for_line_numbers():
    rows = parse([b"", b'{"value": "a"}', b"  \t", b"not json"])
    assert [r["value"] for r in rows] == [b"a", b"not json"]
    assert rows[1][ERROR] == "malformed jsonl: line 4 of /data/in.jsonl: not a JSON object"


def test_the_golden_lines_read_back_as_their_records():
    import json

    rows = parse([json.dumps(line).encode() for line in GOLDEN_JSONL])
    assert [r[ERROR] for r in rows] == [None] * len(RECORDS)
    got = [
        (
            r["key"],
            r["value"],
            r["topic"],
            r["partition"],
            r["offset"],
            r["timestampType"],
            [(h["key"], h["value"]) for h in r["headers"]],
        )
        for r in rows
    ]
    assert got == [(*r[:5], r[6], r[7]) for r in RECORDS]
    assert [r["timestamp"] for r in rows] == [r[5].replace(tzinfo=None) for r in RECORDS]


def test_unknown_fields_are_ignored_and_missing_ones_default():
    [row] = parse([b'{"value": "v", "extra": {"deep": [1, {"x": null}]}}'])
    assert (row["value"], row["topic"], row["timestampType"], row["headers"], row[ERROR]) == (
        b"v",
        "default",
        0,
        [],
        None,
    )


def test_each_line_may_name_its_own_file():
    rows = parse_jsonl_lines(
        pa.array([b"x", b'{"value": "ok"}'], pa.binary()),
        "t",
        pa.array(["file:/a.jsonl", "file:/b.jsonl"]),
        lambda row: None,
        ERROR,
    ).to_pylist()
    assert rows[0][ERROR] == "malformed jsonl: a line of file:/a.jsonl: not a JSON object"


def test_a_piece_of_a_file_numbers_its_lines_from_the_start_of_the_file(tmp_path):
    lines = [b'{"value": "%d"}' % n for n in range(200)]
    lines[150] = b"broken"
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    tasks = FORMATS["jsonl"].read_tasks(ReadOptions(str(path), "t"), [(str(path), path.stat().st_size)], 4, 700)
    assert len(tasks) > 2
    rows = [row for task in tasks for batch in task.batches(max_rows=16) for row in batch.to_pylist()]
    errors = [r[SOURCE_ERROR_COLUMN] for r in rows]
    assert sorted(int(r["value"]) for r, e in zip(rows, errors) if e is None) == [n for n in range(200) if n != 150]
    assert [e for e in errors if e] == [f"malformed jsonl: line 151 of {path}: not a JSON object"]


def test_a_slice_of_lines_parses_as_its_own_lines():
    """The lines Arrow reads are joined from the slice's own bytes (its offset, not the buffer's start)."""
    lines = pa.array(
        [b'{"value": "skipped"}', b'{"value": "\xc3\xa9t\xc3\xa9"}', b'{"key": "k", "value": "b"}'], pa.binary()
    )
    batch = parse_jsonl_lines(lines.slice(1), "default", "/data/in.jsonl", lambda row: row + 1, ERROR)
    assert [(r["key"], r["value"]) for r in batch.to_pylist()] == [(None, "été".encode()), (b"k", b"b")]
