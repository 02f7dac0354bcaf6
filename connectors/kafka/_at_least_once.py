"""At-least-once writes by Python tasks: an idempotent producer per Spark task, its sends checked before it ends.

Each Spark task that writes (one per partition of the written DataFrame)
opens a confluent-kafka producer, sends its rows (each record with its own
timestamp, see :func:`connectors.kafka._task_write.produce_batch`), then
flushes and reads the delivery reports.  A record the brokers did not
acknowledge fails the task (:class:`KafkaWriteError`, naming the cluster,
the topic and Kafka's error), so Spark retries it and the retry sends the
task's records again: at least once, the records sent before the failure
staying in Kafka.  The task succeeds only once every record of it is
acknowledged.

The producer is idempotent (``enable.idempotence=true``) unless the user's
``kafka.*`` settings say otherwise, or set what the idempotent producer
cannot take (``acks`` other than ``all``, more than five requests in flight,
no retries), as Kafka's Java producer does: then retries within the task
may write a record twice too.  Only failed deliveries are reported
(``delivery.report.only.error``), so no Python call is made per
acknowledged record.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Iterator, Mapping

import pyarrow as pa

from connectors.kafka._preflight import KafkaWriteError
from connectors.kafka._task_write import first_rows, produce_batch, task_result

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
        from confluent_kafka import KafkaException, Producer
        from pyspark import TaskContext

        task = TaskContext.get().partitionId()
        batches = iter(batches)
        first = first_rows(batches)
        if first is None:
            return
        failures = _DeliveryFailures()
        servers = self.settings.get("bootstrap.servers", "")
        try:
            producer = Producer(
                {**self.settings, "delivery.report.only.error": True, "on_delivery": failures}
            )  # fmt: skip
        except KafkaException as exc:
            raise KafkaWriteError(f"cannot create a Kafka producer for {servers}: {exc.args[0].str()}") from exc
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
