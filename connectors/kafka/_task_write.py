"""What every Python task that writes to Kafka shares, whatever the guarantee.

Both of the sink's librdkafka writers (:mod:`connectors.kafka._transactional`
for exactly-once, :mod:`connectors.kafka._at_least_once` for at-least-once)
run as a ``mapInArrow`` function per Spark task: they send the task's Arrow
batches through a confluent-kafka ``Producer`` (:func:`produce_batch`, each
record with its own timestamp), tell the records from the dead letters by
the pipeline's flag column, and report one :data:`TASK_RESULT_DDL` row back
to the driver.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable, Iterator

import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:  # pragma: no cover
    from confluent_kafka import Producer

__all__ = ["TASK_RESULT_DDL", "WriteInChainTask", "dead_letter_count", "first_rows", "produce_batch", "task_result"]
__all__ += ["without_flag"]

#: What each writing task reports back to the driver.
TASK_RESULT_DDL = "task int, records long, dead_letters long, skipped boolean"

_RESULT_SCHEMA = pa.schema(
    [("task", pa.int32()), ("records", pa.int64()), ("dead_letters", pa.int64()), ("skipped", pa.bool_())]
)


def task_result(task: int, records: int, dead_letters: int, skipped: bool) -> pa.RecordBatch:
    """The one row a task reports: records and dead letters written, and whether it skipped writing."""
    return pa.RecordBatch.from_pydict(
        {"task": [task], "records": [records], "dead_letters": [dead_letters], "skipped": [skipped]},
        schema=_RESULT_SCHEMA,
    )


def first_rows(batches: Iterator[pa.RecordBatch]) -> pa.RecordBatch | None:
    """The first batch of ``batches`` that has rows (the ones before it are dropped), or None."""
    return next((batch for batch in batches if batch.num_rows), None)


def without_flag(batch: pa.RecordBatch, flag: str | None) -> pa.RecordBatch:
    """``batch`` as written: without the dead-letter flag column, if any."""
    return batch if flag is None else batch.drop_columns([flag])


@dataclasses.dataclass(frozen=True)
class WriteInChainTask:
    """One of the sink's Python writers (a ``mapInArrow`` function: :class:`IdempotentWrite` or
    :class:`TransactionalWrite`) given the chain's output batches in the chain's own task (the ``TaskWrite`` role), each with the topics its rows go to, as the sink's Spark
    projection gives them otherwise: an empty topic is none, a record with none goes to ``topic``
    (``sink.topic``), and a row the flag column marks (with ``dead_letters``: flag, topic) to the
    dead-letter topic."""

    write: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]
    topic: str | None
    dead_letters: tuple[str, str] | None = None

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> None:
        for _ in self.write(self._with_topic(batch) for batch in batches):
            pass  # the task's result row: the pipeline counts from its own rows

    def _with_topic(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        names = batch.schema.names
        if "topic" in names:
            topic = batch.column("topic")
            topic = pc.if_else(pc.equal(topic, ""), pa.scalar(None, pa.string()), topic)
        else:
            topic = pa.nulls(batch.num_rows, pa.string())
        if self.topic:
            topic = pc.fill_null(topic, self.topic)
        if self.dead_letters is not None:
            flag, dead_letter_topic = self.dead_letters
            topic = pc.if_else(pc.fill_null(batch.column(flag), False), dead_letter_topic, topic)
        if "topic" in names:
            return batch.set_column(names.index("topic"), "topic", topic)
        return batch.append_column("topic", topic)


def dead_letter_count(batch: pa.RecordBatch, flag: str | None) -> int:
    """How many rows of ``batch`` the flag column marks as dead letters (0 without one)."""
    if flag is None:
        return 0
    return int(pc.sum(pc.fill_null(batch.column(flag), False)).as_py() or 0)


def produce_batch(producer: "Producer", batch: pa.RecordBatch, keep_partition: bool) -> None:
    """Send every row of ``batch``, each with its own timestamp (null: the time of writing).

    ``batch`` has ``topic``, ``key``, ``value``, ``headers`` and, when
    present, ``timestamp`` and ``partition``.  One ``produce`` call per
    record (librdkafka batches them); the columns are converted to Python
    lists once per batch.  A full local queue is waited out, never dropped.
    """
    rows = batch.num_rows
    if not rows:
        return
    topics = batch.column("topic").to_pylist()
    keys = _column(batch, "key", rows)
    values = _column(batch, "value", rows)
    stamps = _millis(batch.column("timestamp")) if "timestamp" in batch.schema.names else [0] * rows
    partitions = _partitions(batch, rows, keep_partition)
    headers = _headers(batch, rows)
    produce = producer.produce
    for i in range(rows):
        while True:
            try:
                produce(topics[i], values[i], keys[i], partitions[i], timestamp=stamps[i], headers=headers[i])
                break
            except BufferError:
                producer.poll(0.05)
    producer.poll(0)


def _column(batch: pa.RecordBatch, name: str, rows: int) -> list:
    return batch.column(name).to_pylist() if name in batch.schema.names else [None] * rows


def _millis(stamps: pa.Array) -> list[int]:
    """Epoch milliseconds, 0 (librdkafka's "now") where null."""
    if pa.types.is_timestamp(stamps.type):
        stamps = pc.cast(pc.cast(stamps, pa.timestamp("ms", stamps.type.tz), safe=False), pa.int64())
    return pc.fill_null(stamps, 0).to_pylist()


def _partitions(batch: pa.RecordBatch, rows: int, keep_partition: bool) -> list[int]:
    """The partition of each record, -1 (the partitioner chooses) unless kept."""
    if not keep_partition or "partition" not in batch.schema.names:
        return [-1] * rows
    return pc.fill_null(batch.column("partition"), -1).to_pylist()


def _headers(batch: pa.RecordBatch, rows: int) -> list:
    if "headers" not in batch.schema.names:
        return [None] * rows
    column = batch.column("headers")
    if len(column.values) == 0:
        return [None] * rows
    return [[(h["key"], h["value"]) for h in record] if record else None for record in column.to_pylist()]
