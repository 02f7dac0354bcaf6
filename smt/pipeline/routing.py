"""Which output records the chain routed: their topic is not their input record's.

A sink's default topic (``sink.topic`` for Kafka) is the destination of every
record whose topic the chain did not change; records a transform routed
(RegexRouter, TimestampRouter, a guest's ``set_topic``, any plugin) keep
their new topic.  Nothing is guessed from the transform types: each output
row's topic is compared with the topic of the input row it descends from
(its origin, see :mod:`smt.batch`), whole columns at a time.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["routed_rows"]


def routed_rows(output_topics: pa.Array | None, input_topics: pa.Array | None, origins: Sequence[int]) -> np.ndarray:
    """One bool per output row: True when its topic differs from its origin's input topic.

    ``origins`` are the output rows' origins (indexes into ``input_topics``);
    a missing column is all null, and a null topic counts as empty.
    """
    rows = len(origins)
    if output_topics is None:
        return np.zeros(rows, dtype=bool)
    if input_topics is None:
        return _non_empty(output_topics)
    if not isinstance(origins, range) or origins != range(len(input_topics)):
        input_topics = input_topics.take(pa.array(np.asarray(origins, dtype=np.int64)))
    differs = pc.not_equal(pc.fill_null(output_topics, ""), pc.fill_null(input_topics, ""))
    return differs.to_numpy(zero_copy_only=False)


def _non_empty(topics: pa.Array) -> np.ndarray:
    return pc.fill_null(pc.not_equal(topics, ""), False).to_numpy(zero_copy_only=False)
