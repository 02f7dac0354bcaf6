"""The generator's streaming reader: micro-batch ends, on PySpark 4.2+ (admission control) and 4.1 (none)."""

from __future__ import annotations

from connectors._generator_stream import _UNBOUNDED, _NumberStreamReader, _UnlimitedNumberStreamReader


def _reader(cls, records: int, rows_per_batch: int = 10):
    return cls({"records": str(records), "rate": "0", "rowsPerBatch": str(rows_per_batch), "partitions": "2"})


def test_a_micro_batch_takes_at_most_rows_per_batch_or_all_available_and_never_goes_back():
    reader = _reader(_NumberStreamReader, records=25)
    assert reader._end(0, 10) == 10
    assert reader._end(20, 10) == 25
    assert reader._end(0, None) == 25
    assert reader._end(25, 10) == 25


def test_partitions_split_a_range_without_gaps_or_overlaps():
    ranges = _reader(_NumberStreamReader, records=25).partitions({"next": 3}, {"next": 10})
    assert [(r.start, r.end) for r in ranges] == [(3, 7), (7, 10)]


def test_without_admission_control_the_first_answer_is_everything_available_then_rows_per_batch():
    reader = _reader(_UnlimitedNumberStreamReader, records=25)
    assert reader.latestOffset() == {"next": 25}  # what availableNow takes (Spark 4.1 asks once)
    assert reader.latestOffset() == {"next": 25}


def test_without_admission_control_an_unbounded_stream_goes_rows_per_batch_at_a_time():
    reader = _reader(_UnlimitedNumberStreamReader, records=0)
    assert reader.records == _UNBOUNDED
    assert [reader.latestOffset()["next"] for _ in range(3)] == [10, 20, 30]


def test_without_admission_control_a_restarted_query_goes_on_from_the_batch_spark_replans():
    # A restarted query on Spark 4.1 replans its last batch (partitions(end, end)) before it asks for the
    # latest offset: the reader goes on from there, not from 0.
    reader = _reader(_UnlimitedNumberStreamReader, records=0)
    reader.partitions({"next": 500}, {"next": 500})
    assert reader.latestOffset() == {"next": 510}
