"""Where a table row's record says it came from: the partition and offset :mod:`connectors.table.records` counts."""

from __future__ import annotations

import pyarrow as pa

from connectors.table.records import _coordinates


def test_offsets_count_on_per_split_across_batches_and_rows_from_no_file_take_the_task():
    rows_read: dict[int, int] = {5: 3}  # three rows of split 5 read by this task in an earlier batch
    partitions, offsets = _coordinates(pa.array([5, 5, 7, None, None], pa.int32()), 2, rows_read)
    assert (partitions.tolist(), offsets.tolist()) == ([5, 5, 7, 2, 2], [3, 4, 0, 0, 1])
    partitions, offsets = _coordinates(pa.array([7, None], pa.int32()), 2, rows_read)
    assert (partitions.tolist(), offsets.tolist()) == ([7, 2], [1, 2])


def test_an_empty_batch_has_no_coordinates():
    partitions, offsets = _coordinates(pa.array([], pa.int32()), 0, {})
    assert (partitions.tolist(), offsets.tolist()) == ([], [])
