"""At-least-once writes by Python tasks: an idempotent producer per Python worker, each task's sends checked.

Each Spark task that writes (one per partition of the written DataFrame)
takes its Python worker's confluent-kafka producer, sends its rows (each record with its own
timestamp, see :func:`connectors.kafka._task_write.produce_batch`), then
flushes and reads the delivery reports.  A record the brokers did not
acknowledge fails the task (:class:`KafkaWriteError`, naming the cluster,
the topic and Kafka's error), so Spark retries it and the retry sends the
task's records again: at least once, the records sent before the failure
staying in Kafka.  The task succeeds only once every record of it is
acknowledged.

A producer is made once per Python worker process and settings, and kept
for the worker's later tasks and micro-batches (Spark reuses its Python
workers, one task at a time): a new producer first connects, fetches
metadata and asks for a producer id, which cost a streaming micro-batch
about half a second.  A producer whose task failed is dropped, so the
task's retry starts on a new one.

The producer is idempotent (``enable.idempotence=true``) unless the user's
``kafka.*`` settings say otherwise, or set what the idempotent producer
cannot take (``acks`` other than ``all``, more than five requests in flight,
no retries), as Kafka's Java producer does: then retries within the task
may write a record twice too.  Only failed deliveries are reported
(``delivery.report.only.error``), so no Python call is made per
acknowledged record.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import threading
from typing import TYPE_CHECKING, Iterator, Mapping

import pyarrow as pa

from connectors.kafka._preflight import KafkaWriteError
from connectors.kafka._task_write import first_rows, produce_batch, task_result
from smt.python_worker import prepare_worker

if TYPE_CHECKING:
    from confluent_kafka import Producer

__all__ = ["IdempotentWrite", "idempotence_default"]

#: How many failed deliveries a task's error names (it counts them all).
_NAMED_FAILURES = 3


def idempotence_default(settings: Mapping[str, str]) -> dict[str, str]:
    """``settings`` with ``enable.idempotence=true`` unless they set it, or set what it cannot take.

    Kafka's Java producer (3.2 on) does the same: idempotence is on by
    default and quietly off when ``acks``, ``max.in.flight.requests.per.connection``
    or ``retries`` rule it out; librdkafka would refuse the combination instead.
    """
    if "enable.idempotence" in settings:
        return dict(settings)
    conflicts = (
        settings.get("acks", "all").lower() not in ("all", "-1")
        or int(settings.get("max.in.flight.requests.per.connection", "5")) > 5
        or settings.get("retries", "1") == "0"
    )
    return {**settings, "enable.idempotence": "false" if conflicts else "true"}


class _DeliveryFailures:
    """The delivery-report callback: counts the records the brokers did not take, names the first few causes."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.count = 0
        self.named: list[str] = []

    def __call__(self, error, message) -> None:
        if error is None:
            return
        self.count += 1
        named = f"topic '{message.topic()}' partition {message.partition()}: {error.str()}"
        if len(self.named) < _NAMED_FAILURES and named not in self.named:
            self.named.append(named)


@dataclasses.dataclass(frozen=True)
class IdempotentWrite:
    """The ``mapInArrow`` function that writes one task's rows at least once (see the module docs).

    Built on the driver per write and pickled to the executors; yields one
    :data:`connectors.kafka._task_write.TASK_RESULT_DDL` row per task that had rows.
    """

    settings: Mapping[str, str]
    keep_partition: bool = False

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        prepare_worker()
        task = TaskContext.get().partitionId()
        batches = iter(batches)
        first = first_rows(batches)
        if first is None:
            return
        servers = self.settings.get("bootstrap.servers", "")
        with _WORKER_PRODUCERS.lease(self.settings) as (producer, failures):
            records = 0
            for batch in itertools.chain([first], batches):
                produce_batch(producer, batch, self.keep_partition)
                records += batch.num_rows
            # Bounded by librdkafka's message.timeout.ms: a record not acknowledged by then is reported failed.
            while producer.flush(1.0):
                pass
            if failures.count:
                raise KafkaWriteError(
                    f"{failures.count} of the {records} records of task {task} were not acknowledged by {servers} "
                    "(Spark retries the task): " + "; ".join(failures.named)
                )
        yield task_result(task, records, 0, skipped=False)


class _WorkerProducers:
    """This process's idempotent producers, one per settings, each lent to one task at a time.

    A task that raises gives its producer up (an idempotent producer may be left in a fatal state); a
    task that finds its settings' producer lent out (two tasks in one process) gets one of its own.
    """

    def __init__(self) -> None:
        self._idle: dict[tuple, tuple["Producer", _DeliveryFailures]] = {}
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def lease(self, settings: Mapping[str, str]) -> Iterator[tuple["Producer", _DeliveryFailures]]:
        key = tuple(sorted(settings.items()))
        with self._lock:
            lent = self._idle.pop(key, None)
        if lent is None:
            lent = _new_producer(settings)
        lent[1].reset()
        yield lent  # the task's body raising leaves the producer out of the pool
        with self._lock:
            self._idle.setdefault(key, lent)


def _new_producer(settings: Mapping[str, str]) -> tuple["Producer", _DeliveryFailures]:
    from confluent_kafka import KafkaException, Producer

    failures = _DeliveryFailures()
    try:
        producer = Producer({**settings, "delivery.report.only.error": True, "on_delivery": failures})
    except KafkaException as exc:
        servers = settings.get("bootstrap.servers", "")
        raise KafkaWriteError(f"cannot create a Kafka producer for {servers}: {exc.args[0].str()}") from exc
    return producer, failures


_WORKER_PRODUCERS = _WorkerProducers()
