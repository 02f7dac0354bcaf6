"""A sink's task writer fed by the chain's own task (smt.pipeline.runner.WrittenInTask), without Spark."""

from __future__ import annotations

import pyarrow as pa
import pytest

from smt.errors import SmtError
from smt.pipeline.counts import COUNTS_COLUMN
from smt.pipeline.processor import DEAD_LETTER_COLUMN
from smt.pipeline.runner import WrittenInTask


def _step(batch: pa.RecordBatch):
    """What the processor's step yields for one input batch: its output, then its counts row."""
    out = batch.append_column(COUNTS_COLUMN, pa.nulls(batch.num_rows, pa.int64()))
    counts_row = pa.RecordBatch.from_pydict(
        {name: pa.nulls(1, out.schema.field(name).type) for name in out.schema.names}, schema=out.schema
    )
    return iter([out, counts_row])


def _batches() -> list[pa.RecordBatch]:
    return [
        pa.RecordBatch.from_pydict({"value": [b"a", b"dead"], DEAD_LETTER_COLUMN: [False, True]}),
        pa.RecordBatch.from_pydict({"value": [b"b"], DEAD_LETTER_COLUMN: [False]}),
    ]


@pytest.mark.parametrize("dead_letters", [False, True])
def test_the_writer_gets_every_batch_and_only_the_counts_rows_come_back(dead_letters):
    written: list[pa.RecordBatch] = []
    rows = list(WrittenInTask(lambda batches: written.extend(batches), dead_letters)(_step, iter(_batches())))

    assert len(rows) == 2 and all(row.num_rows == 1 for row in rows)
    assert all(COUNTS_COLUMN not in batch.schema.names for batch in written)
    values = [v for batch in written for v in batch.column("value").to_pylist()]
    if dead_letters:  # the writer tells them apart by the flag
        assert values == [b"a", b"dead", b"b"]
        assert all(DEAD_LETTER_COLUMN in batch.schema.names for batch in written)
    else:
        assert values == [b"a", b"b"]
        assert all(DEAD_LETTER_COLUMN not in batch.schema.names for batch in written)


def test_a_writer_that_returns_before_taking_every_batch_fails_the_task():
    def takes_one(batches):
        next(batches)

    with pytest.raises(SmtError, match="returned before it was given every batch of its task"):
        list(WrittenInTask(takes_one, dead_letters=False)(_step, iter(_batches())))


def test_a_writer_that_fails_lets_no_counts_row_out():
    def fails(batches):
        list(batches)
        raise SmtError("not acknowledged")

    with pytest.raises(SmtError, match="not acknowledged"):
        list(WrittenInTask(fails, dead_letters=False)(_step, iter(_batches())))
