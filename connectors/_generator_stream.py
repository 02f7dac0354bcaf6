"""The generator's streaming input: event numbers 0, 1, 2, ... as a Python streaming data source.

Offsets are event numbers, so a micro-batch covers a fixed range and a replay
after a crash regenerates the same events.  Each micro-batch takes at most
``rows.per.batch`` numbers (Spark's admission control); with
``streaming.trigger=availableNow`` the query takes every number available at
start and stops: all ``records`` when ``rate=0``, or what the rate has
allowed so far.

PySpark 4.1 has no admission control for Python sources (``latestOffset``
takes no start and no limit; ``pyspark.sql.streaming.datasource`` arrived in
4.2).  There the reader remembers the furthest offset Spark has planned (a
restarted query replans its last batch first), and its first answer takes
every record available at start, which is what ``availableNow`` asks for:
later micro-batches take at most ``rows.per.batch``.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition

try:
    from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows
except ImportError:  # PySpark 4.1: no admission control for Python sources
    ReadAllAvailable = ReadLimit = ReadMaxRows = None  # type: ignore[assignment,misc]

#: Numbers per Arrow batch handed to Spark.
_ARROW_ROWS = 65_536

#: The end of an unbounded stream (``records=0``).
_UNBOUNDED = 2**62


class GeneratorNumbers(DataSource):
    """``spark.readStream.format("smt-generator-numbers")``: one ``i long`` column."""

    @classmethod
    def name(cls) -> str:
        return "smt-generator-numbers"

    def schema(self) -> str:
        return "i long"

    def streamReader(self, schema: Any) -> "_NumberStreamReader":
        if ReadLimit is None:
            return _UnlimitedNumberStreamReader(self.options)
        return _NumberStreamReader(self.options)


class _Range(InputPartition):
    def __init__(self, start: int, end: int) -> None:
        self.start = start
        self.end = end


class _NumberStreamReader(DataSourceStreamReader):
    def __init__(self, options: Any) -> None:
        self.records = int(options.get("records", "0")) or _UNBOUNDED
        self.rate = int(options.get("rate", "0"))
        self.rows_per_batch = int(options.get("rowsPerBatch", "100000"))
        self.partitions_per_batch = max(1, int(options.get("partitions", "1")))
        self._allowed = 0.0
        self._last_call = time.monotonic()

    def initialOffset(self) -> dict:
        return {"next": 0}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.rows_per_batch)

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        begin = int(start["next"])
        max_rows = None if isinstance(limit, ReadAllAvailable) else limit.max_rows
        return {"next": self._end(begin, max_rows)}

    def _end(self, begin: int, max_rows: int | None) -> int:
        """Where a micro-batch from ``begin`` ends: what the rate allows, at most ``max_rows`` more (None: all)."""
        available = self.records
        if self.rate:
            now = time.monotonic()
            self._allowed += (now - self._last_call) * self.rate
            self._last_call = now
            available = min(self.records, begin + int(self._allowed))
        end = available if max_rows is None else min(available, begin + max_rows)
        if self.rate:
            self._allowed -= max(0, end - begin)
        return max(begin, end)

    def partitions(self, start: dict, end: dict) -> list[_Range]:
        begin, finish = int(start["next"]), int(end["next"])
        step = max(1, -(-(finish - begin) // self.partitions_per_batch))
        return [_Range(low, min(low + step, finish)) for low in range(begin, finish, step)]

    def read(self, partition: _Range) -> Iterator[Any]:
        import pyarrow as pa

        for low in range(partition.start, partition.end, _ARROW_ROWS):
            high = min(low + _ARROW_ROWS, partition.end)
            yield pa.RecordBatch.from_arrays([pa.array(range(low, high), pa.int64())], names=["i"])

    def commit(self, end: dict) -> None:
        pass


class _UnlimitedNumberStreamReader(_NumberStreamReader):
    """The reader on PySpark 4.1, whose ``latestOffset`` learns neither the start nor a limit."""

    def __init__(self, options: Any) -> None:
        super().__init__(options)
        self._planned = 0
        self._answered = False

    def latestOffset(self) -> dict:  # type: ignore[override]
        first, self._answered = not self._answered, True
        all_available = first and self.records != _UNBOUNDED
        self._planned = self._end(self._planned, None if all_available else self.rows_per_batch)
        return {"next": self._planned}

    def partitions(self, start: dict, end: dict) -> list[_Range]:
        self._planned = max(self._planned, int(end["next"]))
        return super().partitions(start, end)
