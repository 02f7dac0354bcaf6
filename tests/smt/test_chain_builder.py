"""Grouping a chain's keys by alias: one pass, whatever the chain's length."""

from smt._chain_builder import configs_by_alias


def test_each_key_goes_to_the_longest_alias_it_starts_with_and_strays_are_kept():
    props = {
        "transforms": "a,a.b,c",
        "transforms.a.type": "A",
        "transforms.a.b.type": "AB",
        "transforms.a.b.c.x": "deep",
        "transforms.a.x.y": "of a",
        "transforms.d.type": "not listed",
        "transforms.c": "no key under c",
        "predicates.p.type": "another list",
    }
    own, strays = configs_by_alias(props, "transforms", ["a", "a.b", "c"])
    assert own == {"a": {"type": "A", "x.y": "of a"}, "a.b": {"type": "AB", "c.x": "deep"}, "c": {}}
    assert strays == ["transforms.d.type", "transforms.c"]
