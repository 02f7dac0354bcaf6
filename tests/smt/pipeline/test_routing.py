"""Which output records the chain routed: compared with their input record's topic (smt.pipeline.routing)."""

import pyarrow as pa
import pytest

from smt.pipeline.routing import routed_rows


def topics(*names):
    return pa.array(names, pa.string())


def test_rows_that_kept_their_input_topic_are_not_routed():
    assert routed_rows(topics("a", "b"), topics("a", "b"), range(2)).tolist() == [False, False]


def test_each_output_row_is_compared_with_the_input_row_it_came_from():
    # Input 0 was dropped, input 1 fanned out into two records (one routed), input 2 was routed.
    routed = routed_rows(topics("b", "elsewhere", "c-2024"), topics("a", "b", "c"), [1, 1, 2])
    assert routed.tolist() == [False, True, True]


@pytest.mark.parametrize("output, source, expected", [
    (None, None, False), ("", None, False), (None, "", False),   # no topic before and after: not routed
    ("t", None, True), (None, "t", True),                         # given or taken away: routed
])  # fmt: skip
def test_a_null_topic_counts_as_empty(output, source, expected):
    assert routed_rows(topics(output), topics(source), range(1)).tolist() == [expected]


def test_without_the_columns():
    assert routed_rows(None, topics("a"), [0, 0]).tolist() == [False, False]
    assert routed_rows(topics("a", "", None), None, range(3)).tolist() == [True, False, False]
