"""Exactly-once writes: one Kafka transaction per Spark task, and a marker that makes a replay skip it.

The records are first spread over the write's tasks by a hash of the
partition they were read from (which the chain keeps): :func:`deal_to_tasks`.  Each Spark task that writes owns the transactional id
``<prefix>-<task index>``.  It

1. opens a transactional producer with that id and calls
   ``init_transactions()`` first: the broker fences every older producer with
   the id (a zombie attempt of the same task, a task of a driver that was
   killed) and finishes their open transaction, so nothing of theirs can
   commit from now on;
2. then reads its marker (below): if the marker names this run and batch, an
   earlier attempt committed this task's records already, and the task
   writes nothing;
3. else writes its records, each with its own timestamp, and the marker in
   one transaction, and commits it.

A task that has no records this batch still does 1, so that every task id's
older producers are fenced on each batch, whichever tasks the records go to.

The marker is the committed offset of the consumer group named like the
transactional id, on partition 0 of the markers topic (nothing is ever
written to that topic: it only anchors the offsets).  It is committed with
``send_offsets_to_transaction``, so it becomes visible exactly when the
records do; its metadata is ``<run>/<batch>/<tasks>``.  The run is the streaming
query's id, which Spark keeps in the checkpoint (a restart keeps it), or a
fresh id per batch run.  Reading it with ``isolation.level=read_committed``
after ``init_transactions()`` sees every transaction of the id that can
still commit.

A replay must give each task the same input records.  Spark replays a
micro-batch from the offset ranges in its offset log, but the order in which
its Kafka source plans them is not kept: a first run lists a topic's
partitions as the Kafka client returned them, a replay as the offset log
sorted them, so the task that read partition 1 may read partition 0 after a
restart (a test that kills the driver lost a batch that way).  Hence the
hash, and a hash of where a record came from, not of where it goes: a restart
may change the chain (a router, a new key), and the records a task's marker
says it committed must be the ones it is given again, whatever the chain
now makes of them (dealt by destination, a changed router moved records
between a committed task and the others: some were lost, some written
twice).  The task count is in the marker, so a replay with another count
(another Spark parallelism) writes the batch again rather than skip a task
whose records moved: a duplicate, never a loss.  The records of one input
partition go to one task, in their order: an output partition keeps the
order of the records it takes from one input partition.
"""

from __future__ import annotations

import dataclasses
import itertools
import uuid
from typing import TYPE_CHECKING, Iterator, Mapping

import pyarrow as pa

from connectors.kafka._preflight import KafkaWriteError
from connectors.kafka._task_write import dead_letter_count, first_rows, produce_batch, task_result, without_flag
from smt.errors import SmtError
from smt.python_worker import prepare_worker

if TYPE_CHECKING:  # pragma: no cover
    from confluent_kafka import Consumer, Producer
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["TaskTransaction", "TransactionalWrite", "deal_to_tasks", "new_run_id", "stream_task_count"]

#: Spark's local property holding the streaming query's id (kept in the checkpoint's metadata).
_QUERY_ID_PROPERTY = "sql.streaming.queryId"
#: Spark's local property holding the id of the micro-batch a streaming query's task runs.
_BATCH_ID_PROPERTY = "streaming.sql.batchId"

#: How long the librdkafka calls of one task may wait for the brokers.
_TIMEOUT_S = 60.0

#: Transactions may stay open this long (the broker's transaction.max.timeout.ms caps it, default 15 min).
_TRANSACTION_TIMEOUT_MS = "600000"

#: A task's producer lives for one transaction, and its first call, ``init_transactions``, needs the
#: transaction coordinator at once.  librdkafka's sparse connections delay the connection to a broker it
#: has just learned (by half ``reconnect.backoff.ms``, or until its 500 ms coordinator-query timer when
#: the attempt is suppressed): measured on the local broker, ``init_transactions`` took 60 ms, and 510 ms
#: in nearly half the calls; connecting to every broker as soon as it is known, 8 to 25 ms.
_EAGER_CONNECTIONS = {"enable.sparse.connections": "false"}


def deal_to_tasks(out: "DataFrame") -> tuple["DataFrame", int]:
    """``out`` spread over as many tasks as it has partitions by a hash of the partition each record was
    read from (its ``partition``, which no transform changes), so that a replayed batch gives each task
    the same input records, whatever the chain makes of them; and that task count."""
    try:
        if out.isStreaming:  # a stream's tasks are planned per micro-batch: the session's shuffle width
            raise ValueError
        tasks = max(out.rdd.getNumPartitions(), 1)
    except Exception:  # Spark Connect has no RDDs: the session's shuffle width
        tasks = stream_task_count(out.sparkSession)
    return out.repartition(tasks, "partition"), tasks


def stream_task_count(spark: "SparkSession") -> int:
    """How many tasks :func:`deal_to_tasks` deals a stream's records to: the session's shuffle width."""
    return max(int(spark.conf.get("spark.sql.shuffle.partitions")), 1)


def new_run_id() -> str:
    """The run of a batch-mode write (a streaming run uses its query's id)."""
    return f"batch-{uuid.uuid4()}"


class TaskTransaction:
    """One task's transactional producer and marker, for one batch.

    ``begin()`` fences older attempts and says whether this task still has
    to write; then ``produce`` any number of Arrow batches, then ``commit``.
    """

    def __init__(self, settings: Mapping[str, str], transactional_id: str, markers_topic: str, marker: str) -> None:
        from confluent_kafka import Consumer, Producer

        self.transactional_id = transactional_id
        self.markers_topic = markers_topic
        self.marker = marker
        self.producer: Producer = Producer({
            "transaction.timeout.ms": _TRANSACTION_TIMEOUT_MS, **_EAGER_CONNECTIONS, **settings,
            "transactional.id": transactional_id, "enable.idempotence": "true", "acks": "all",
        })  # fmt: skip
        self._consumer_key = (tuple(sorted(settings.items())), transactional_id)
        self._consumer = _MARKER_READERS.pop(self._consumer_key, None)
        if self._consumer is None:
            consumer_settings = {k: v for k, v in settings.items() if not _producer_only(k)}
            self._consumer = Consumer({
                **consumer_settings, "group.id": transactional_id,
                "isolation.level": "read_committed", "enable.auto.commit": "false",
            })  # fmt: skip

    def fence(self) -> None:
        """Fence every older producer of this task's id: their open transactions are aborted and can never commit."""
        self._call("initialising transactions", self.producer.init_transactions, _TIMEOUT_S)

    def begin(self) -> bool:
        """Fence older producers of this task; False when this batch's records are committed already."""
        self.fence()
        if self.committed_marker() == self.marker:
            return False
        self._call("beginning a transaction", self.producer.begin_transaction)
        return True

    def committed_marker(self) -> str | None:
        """The ``<run>/<batch>`` last committed by this task's id, or None."""
        from confluent_kafka import TopicPartition

        found = self._call(
            "reading the task's marker",
            self._consumer.committed,
            [TopicPartition(self.markers_topic, 0)],
            _TIMEOUT_S,
        )
        return found[0].metadata if found and found[0].offset >= 0 else None

    def produce(self, batch: pa.RecordBatch, keep_partition: bool) -> None:
        """Send ``batch``'s records (``topic``, ``key``, ``value``, ``headers``, ``timestamp``, ``partition``)."""
        produce_batch(self.producer, batch, keep_partition)

    def commit(self, batch_id: int) -> None:
        """Commit the records sent and this batch's marker, atomically."""
        from confluent_kafka import TopicPartition

        marker = TopicPartition(self.markers_topic, 0, batch_id + 1, metadata=self.marker)
        group = self._consumer.consumer_group_metadata()
        self._call("committing the marker", self.producer.send_offsets_to_transaction, [marker], group, _TIMEOUT_S)
        self._call("committing the transaction", self.producer.commit_transaction, _TIMEOUT_S)

    def abort(self) -> None:
        """Abort the open transaction, when the producer still may (a fenced one may not)."""
        try:
            self.producer.abort_transaction(_TIMEOUT_S)
        except Exception:  # the task fails with the error that led here
            pass

    def close(self, reusable: bool = False) -> None:
        """Release the clients (an open transaction is left to the broker's timeout, or the next attempt).

        With ``reusable`` (the task went well) the marker's consumer is kept for this process's next task
        of the same id: a fresh one spends tens of milliseconds finding the group's coordinator.
        """
        if reusable:
            _MARKER_READERS.setdefault(self._consumer_key, self._consumer)
        else:
            self._consumer.close()
        del self.producer

    def _call(self, doing: str, method, *args):
        from confluent_kafka import KafkaError, KafkaException

        try:
            return method(*args)
        except KafkaException as exc:
            error = exc.args[0] if exc.args and isinstance(exc.args[0], KafkaError) else None
            if error is not None and error.code() in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED):
                raise KafkaWriteError(
                    f"transactional.id '{self.transactional_id}': fenced while {doing} by a newer attempt of "
                    "the same task, which writes its records instead"
                ) from exc
            raise KafkaWriteError(f"transactional.id '{self.transactional_id}': {doing} failed: {exc}") from exc


#: This worker process's marker consumers, by (settings, transactional id), between its tasks (not
#: between processes: a consumer that only reads and commits group offsets owns nothing to fence).
_MARKER_READERS: dict[tuple, "Consumer"] = {}


def _producer_only(name: str) -> bool:
    return name in {"acks", "enable.idempotence", "linger.ms", "partitioner", "message.max.bytes",
                    "transaction.timeout.ms", "compression.type", "batch.size", "retries"}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class TransactionalWrite:
    """The ``mapInArrow`` function that writes one task's rows in one transaction (see the module docs).

    Built on the driver per batch and pickled to the executors; yields one
    :data:`TASK_RESULT_DDL` row per task that had rows.
    """

    settings: Mapping[str, str]
    prefix: str
    markers_topic: str
    #: The batch; None inside a streaming query, whose tasks read their micro-batch's id.
    batch_id: int | None
    run: str | None = None
    #: How many tasks the records were dealt to (:func:`deal_to_tasks`): part of the marker.
    tasks: int = 1
    keep_partition: bool = False
    #: The boolean column that flags dead letters (counted apart), if any.
    dead_letter_column: str | None = None

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        prepare_worker()
        context = TaskContext.get()
        task = context.partitionId()
        batches = iter(batches)
        first = first_rows(batches)
        run = self.run or context.getLocalProperty(_QUERY_ID_PROPERTY)
        batch_id = self.batch_id if self.batch_id is not None else context.getLocalProperty(_BATCH_ID_PROPERTY)
        if not run or batch_id is None:
            raise SmtError("exactly-once write: no streaming query id and no run id; cannot name the batch")
        batch_id = int(batch_id)
        transaction = TaskTransaction(self.settings, f"{self.prefix}-{task}", self.markers_topic,
                                      f"{run}/{batch_id}/{self.tasks}")  # fmt: skip
        succeeded = False
        try:
            if first is None:
                # No records for this task: its id is still fenced, so that a hung attempt of an earlier
                # run's task N (whose records now go to whichever task their input partition deals to)
                # can never commit.
                transaction.fence()
            else:
                yield self._write(transaction, task, batch_id, first, batches)
            succeeded = True
        finally:
            transaction.close(reusable=succeeded)

    def _write(
        self, transaction: TaskTransaction, task: int, batch_id: int, first: pa.RecordBatch, batches
    ) -> pa.RecordBatch:
        records = dead = 0
        writing = transaction.begin()
        try:
            # An already committed task still drains its rows: the pipeline's counts include them.
            for batch in itertools.chain([first], batches):
                if writing:
                    transaction.produce(without_flag(batch, self.dead_letter_column), self.keep_partition)
                dead += dead_letter_count(batch, self.dead_letter_column)
                records += batch.num_rows
            if writing:
                transaction.commit(batch_id)
        except BaseException:
            if writing:
                transaction.abort()
            raise
        return task_result(task, records - dead, dead, skipped=not writing)
