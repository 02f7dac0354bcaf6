"""The nesting limit: measured without recursion, refused past 1000 levels, and walkable up to it."""

import sys

import pytest

from smt.data import Schema, SchemaBuilder, Struct, parse_string
from smt.data.nesting import MAX_NESTING_DEPTH, NestingTooDeep, allow_deep_recursion, check_nesting, nesting_depth


def nested_lists(depth):
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    "value, depth",
    [(1, 0), ([], 1), ({"a": [1, {"b": ()}]}, 4), (nested_lists(50_000), MAX_NESTING_DEPTH + 1)],
)
def test_depth_counts_containers_and_stops_past_the_limit(value, depth):
    assert nesting_depth(value) == depth


def test_a_struct_is_a_level():
    schema = SchemaBuilder.struct().field("a", SchemaBuilder.array(Schema.INT32_SCHEMA).build()).build()
    assert nesting_depth({"s": Struct(schema).put("a", [1])}) == 3


def test_the_limit_is_kafkas_1000_levels():
    check_nesting(nested_lists(MAX_NESTING_DEPTH))
    with pytest.raises(NestingTooDeep, match=r"value is nested more than 1000 levels deep .*Kafka's JsonConverter"):
        check_nesting(nested_lists(MAX_NESTING_DEPTH + 1))


def test_recursion_room_is_raised_never_lowered(monkeypatch):
    monkeypatch.setattr(sys, "getrecursionlimit", lambda: 1_000_000)
    monkeypatch.setattr(sys, "setrecursionlimit", lambda _: pytest.fail("lowered the recursion limit"))
    allow_deep_recursion()


def test_values_parser_reads_1000_levels_and_refuses_deeper_text_instead_of_reading_a_string():
    allow_deep_recursion()
    schema, value = parse_string("[" * MAX_NESTING_DEPTH + "]" * MAX_NESTING_DEPTH)
    assert nesting_depth(value) == MAX_NESTING_DEPTH
    with pytest.raises(NestingTooDeep, match="text is nested more than 1000 levels deep"):
        parse_string("[" * 5000 + "1" + "]" * 5000)
    # A malformed array inside is still a string, and leaves the depth count as it was.
    assert parse_string("[[1,,2], 3]") == (Schema.STRING_SCHEMA, "[[1,,2], 3]")
