"""JSON nested up to 1000 levels reads and writes as Kafka's JsonConverter does; deeper fails the record alone."""

import orjson
import pytest

from converters.json._deep import ORJSON_MAX_DEPTH, dumps_deep
from converters.json.converter import JsonConverter
from smt.data.nesting import MAX_NESTING_DEPTH, NestingTooDeep, allow_deep_recursion


def brackets(depth: int, inner: bytes = b"") -> bytes:
    return b'{"x":' + b"[" * (depth - 1) + inner + b"]" * (depth - 1) + b"}"


@pytest.mark.parametrize(
    "value",
    [{"a": [1, 2.5, None, True, "é\n"], "b": {}, "c": []}, [[], [[]], {"k": [{"z": "q"}]}], "s", 3, None],
)
def test_deep_writer_writes_the_bytes_orjson_writes(value):
    assert dumps_deep(value) == orjson.dumps(value)


def test_deep_writer_goes_past_orjson_to_the_limit_and_no_further():
    value: list = []
    for _ in range(MAX_NESTING_DEPTH - 1):
        value = [value, 1]
    assert dumps_deep(value).count(b"[") == MAX_NESTING_DEPTH
    with pytest.raises(NestingTooDeep):
        dumps_deep([value])


def converter(schemas: bool = False) -> JsonConverter:
    allow_deep_recursion()
    c = JsonConverter()
    c.configure({"schemas.enable": schemas})
    return c


@pytest.mark.parametrize("depth", [ORJSON_MAX_DEPTH + 1, MAX_NESTING_DEPTH])
def test_a_document_up_to_1000_levels_round_trips_byte_for_byte(depth):
    c = converter()
    errors = []
    _, values = c.to_connect_batch(["t"], [brackets(depth, b'"x"')], lambda row, exc: errors.append(exc))
    assert errors == []
    assert c.from_connect_batch(["t"], None, values, lambda row, exc: errors.append(exc)) == [brackets(depth, b'"x"')]
    assert errors == []


@pytest.mark.parametrize("depth", [MAX_NESTING_DEPTH + 1, 1025, 100_000])
def test_a_deeper_document_fails_alone_naming_the_limit(depth):
    errors = []
    _, values = converter().to_connect_batch(
        ["t", "t"], [b'{"ok":1}', brackets(depth)], lambda row, exc: errors.append((row, exc))
    )
    assert values[0] == {"ok": 1}
    [(row, exc)] = errors
    assert row == 1
    with pytest.raises(Exception, match=r"cannot read JSON: value is nested more than 1000 levels deep"):
        raise exc


def test_a_value_built_deeper_than_the_limit_fails_alone_when_written():
    deep: list = []
    for _ in range(5000):
        deep = [deep, b"bytes"]
    errors = []
    out = converter().from_connect_batch(["t", "t"], None, [deep, [b"ok"]], lambda row, exc: errors.append((row, exc)))
    assert out == [None, b'["b2s="]']
    assert [row for row, _ in errors] == [0]
    assert "cannot write value as JSON: value is nested more than 1000 levels deep" in str(errors[0][1])


def test_the_schema_envelope_writes_deep_payloads_too():
    c = converter(schemas=True)
    document = b'{"schema":null,"payload":' + brackets(600) + b"}"
    _, value = c.to_connect_data("t", document)
    assert c.from_connect_data("t", None, value) == document
