"""A failed run's counts: what was committed, and which counts are uncertain."""

import pytest

from smt.pipeline.failed_counts import DEAD_LETTERS, SINK, failed_run_counts
from smt.pipeline.processor import BatchCounts

PROCESSED = BatchCounts(read=10, written=6, output_rows=6, filtered=1, failed=3, dead_lettered=3)


def counts(**changes):
    return BatchCounts(**{**vars(PROCESSED), **changes})


@pytest.mark.parametrize(
    "writes_done, sink_atomic, dead_letters_atomic, committed, uncertain",
    [
        # the sink's write (where records are processed) failed: a file sink holds none of it
        ((), True, True, counts(written=0, output_rows=0, dead_lettered=0), ("read", "filtered", "failed")),
        # ... a Kafka sink some
        ((), False, True, counts(dead_lettered=0), ("read", "filtered", "failed", "written", "output_rows")),
        # the dead letters' write failed (a full disk): the sink holds its records, the folder none
        ((SINK,), True, True, counts(dead_lettered=0), ()),
        ((SINK,), True, False, PROCESSED, ("dead_lettered",)),
        ((SINK, DEAD_LETTERS), False, False, PROCESSED, ()),
    ],
)
def test_a_batch_run(writes_done, sink_atomic, dead_letters_atomic, committed, uncertain):
    failed = failed_run_counts(
        PROCESSED,
        streaming=False,
        writes_done=frozenset(writes_done),
        sink_atomic=sink_atomic,
        dead_letters_atomic=dead_letters_atomic,
    )
    assert (failed.counts, failed.uncertain) == (committed, uncertain)


def test_a_batch_run_that_counted_nothing_says_so():
    failed = failed_run_counts(
        None, streaming=False, writes_done=frozenset(), sink_atomic=True, dead_letters_atomic=True
    )
    assert failed.counts == BatchCounts() and failed.uncertain == ("read", "filtered", "failed")


@pytest.mark.parametrize(
    "sink_atomic, dead_letters_atomic, uncertain",
    [
        (True, True, ()),
        (False, True, ("written", "output_rows")),
        (False, False, ("written", "output_rows", "dead_lettered")),
    ],
)
def test_a_streaming_run_counts_its_finished_micro_batches(sink_atomic, dead_letters_atomic, uncertain):
    failed = failed_run_counts(
        PROCESSED,
        streaming=True,
        writes_done=frozenset(),
        sink_atomic=sink_atomic,
        dead_letters_atomic=dead_letters_atomic,
    )
    assert (failed.counts, failed.uncertain) == (PROCESSED, uncertain)
