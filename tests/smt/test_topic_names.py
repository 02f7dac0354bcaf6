"""Which topics may name a place: Kafka's topic-name rule (smt.topic_names)."""

import pyarrow as pa
import pytest

from smt.topic_names import illegal_topics, topic_name_problem

LEGAL = ["orders", "orders.v1", "orders_v1", "Orders-EU", "...x", "_", "a" * 249]
ILLEGAL = ["..", ".", "../x", "a/b", "/abs", "a\\b", "nul\x00x", "a b", "ö", "a" * 250, "x\n"]


@pytest.mark.parametrize("topic", LEGAL)
def test_a_legal_kafka_topic_name_passes(topic):
    assert topic_name_problem(topic) is None


@pytest.mark.parametrize("topic", ILLEGAL)
def test_anything_else_is_refused_naming_the_topic_and_the_rule(topic):
    assert topic_name_problem(topic) == (
        f"topic {topic!r} is not a legal Kafka topic name: 1 to 249 ASCII letters, digits, '.', '_' or '-', "
        "and not '.' or '..'"
    )


@pytest.mark.parametrize("topic", [None, ""])
def test_no_topic_is_refused(topic):
    assert topic_name_problem(topic) == "the record has no topic"


def test_the_column_check_agrees_with_the_one_name_check():
    names = LEGAL + ILLEGAL + ["", None, "orders"]
    assert sorted(illegal_topics(pa.array(names, pa.string())), key=repr) == sorted(ILLEGAL + ["", None], key=repr)
