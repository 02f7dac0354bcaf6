"""The per-batch work of a pipeline, run on Spark's executors.

:class:`BatchProcessor` takes one Arrow batch in Kafka row layout and returns
one Arrow batch: the output records, followed by dead-letter rows (the
original input records, flagged in the extra ``_smt_dead_letter`` column).
Converters, the chain and the error policy are resolved once, when the
processor is built; the per-batch path only moves columns.

A record can fail at every stage: TASK_POLL (the source could not read it),
the converters, the transforms, and TASK_PUT (the sink says it cannot write
the serialized record, see :meth:`smt.connector_roles.RecordChecks.record_errors`).

Every input row ends up in exactly one of: written (one or more output
rows), filtered (dropped by a transform), failed (skipped or dead-lettered).
:class:`BatchCounts` reports those numbers for each batch.

Columns of the input batch outside the Kafka row layout (a user's own ids,
say) travel with their record, see :mod:`smt.pipeline.extra_columns`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pyarrow as pa

from smt.batch import KAFKA_ARROW_SCHEMA, RecordBatch, distinct_origins
from smt.chain import ChainErrors, TransformChain
from smt.connector import SOURCE_ERROR_COLUMN
from smt.connector_roles import sink_roles
from smt.data.nesting import NestingTooDeep, allow_deep_recursion
from smt.error_handling import (
    ErrorPolicy,
    FailedRecord,
    context_headers,
    log_failure,
    log_undeliverable,
    masked_error,
    with_retries,
)
from smt.errors import DataError, RetriableError, Stage, StageError
from smt.gc_pause import gc_paused
from smt.metrics import ChainMetrics
from smt.pipeline.extra_columns import with_error_columns, with_extras
from smt.pipeline.routing import routed_rows
from smt.record import KAFKA_ROW_FIELDS

__all__ = [
    "BatchProcessor",
    "BatchCounts",
    "OUTPUT_ARROW_SCHEMA",
    "DEAD_LETTER_COLUMN",
    "SourceRecordError",
]

DEAD_LETTER_COLUMN = "_smt_dead_letter"


class SourceRecordError(DataError):
    """A source could not read one record; the message says what was wrong."""


OUTPUT_ARROW_SCHEMA = KAFKA_ARROW_SCHEMA.append(pa.field(DEAD_LETTER_COLUMN, pa.bool_()))


@dataclasses.dataclass
class BatchCounts:
    """How the input rows of one batch were accounted for."""

    read: int = 0
    written: int = 0
    output_rows: int = 0
    filtered: int = 0
    failed: int = 0
    dead_lettered: int = 0

    def add(self, other: "BatchCounts") -> None:
        for field in dataclasses.fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))


class _Failures(ChainErrors):
    """Collects the failed rows of one batch, or raises at the first one (tolerance none)."""

    def __init__(self, policy: ErrorPolicy) -> None:
        self.policy = policy
        self.records: dict[int, FailedRecord] = {}
        #: Failed records the dead-letter queue itself could not take.
        self.undeliverable = 0

    def failed(self, origin: int, error: StageError) -> None:
        if isinstance(error.cause, RecursionError):
            # A walk that found no bottom: the record is too deep, whichever stage noticed.
            cause = NestingTooDeep()
            cause.__cause__ = error.cause
            error = StageError(
                error.stage, error.plugin_class, cause, record=error.record, alias=error.alias, location=error.location
            )
        if not self.policy.tolerates_all:
            masked = masked_error(self.policy, error)
            if masked is not error:
                raise masked from None  # the unmasked error must not ride along as its context
            raise error
        log_failure(self.policy, error, error.record)
        self.records.setdefault(origin, FailedRecord(origin, error))

    def converter_sink(self, stage: Stage, converter: Any, batch: RecordBatch):
        """An ``on_error`` callback for a converter's batch method."""

        def on_error(row: int, exc: BaseException) -> None:
            self.failed(
                batch.origin[row],
                StageError(stage, type(converter).class_name(), exc, record=batch.record(row)),
            )

        return on_error


class BatchProcessor:
    """Converters + chain + error policy, applied to Arrow batches."""

    def __init__(
        self,
        chain: TransformChain,
        key_converter: Any,
        value_converter: Any,
        header_converter: Any,
        policy: ErrorPolicy,
        task_id: int = 0,
        source_class: str = "source",
        output_fields: tuple[str, ...] | None = None,
        sink: Any = None,
        dead_letters: Any = None,
        dead_letter_rows: bool | None = None,
        error_columns: bool = False,
    ) -> None:
        self.source_class = source_class
        # Only the roles travel to the executors (pickled with the processor), not the sink itself:
        # a sink with the core alone never leaves the driver.
        roles = sink_roles(sink) if sink is not None else None
        #: The sink's class name, which names it in a TASK_PUT error.
        self.sink_class = type(sink).class_name() if sink is not None else None
        #: The sink's record checks (TASK_PUT; see smt.connector_roles.RecordChecks), or None.
        self.record_checks = roles.record_checks if roles is not None else None
        #: The sink's own encoding of values (smt.connector_roles.ValueEncoding), or None.
        self.value_encoding = roles.value_encoding if roles is not None else None
        #: The dead letters the dead-letter writer cannot take (see smt.pipeline.dead_letters), or None.
        dead_letter_roles = sink_roles(dead_letters) if dead_letters is not None else None
        self.dead_letter_checks = dead_letter_roles.record_checks if dead_letter_roles is not None else None
        #: Kafka row fields of the output batches (all when None).
        self.output_fields = output_fields
        self.chain = chain
        self.key_converter = key_converter
        self.value_converter = value_converter
        self.header_converter = header_converter
        self.policy = policy
        self.task_id = task_id
        #: Whether failed records come back as dead-letter rows (default: when a queue is configured).
        self.dead_letter_rows = policy.dead_letters if dead_letter_rows is None else dead_letter_rows
        #: Whether output batches carry :data:`ERROR_COLUMNS`.
        self.error_columns = error_columns

    @classmethod
    def from_spec(cls, spec: Any) -> "BatchProcessor":
        return cls(
            spec.chain,
            spec.key_converter,
            spec.value_converter,
            spec.header_converter,
            spec.policy,
            source_class=type(spec.source).class_name(),
            output_fields=spec.field_plan.outputs,
            sink=spec.sink,
            dead_letters=spec.dead_letters,
        )

    # --- one batch ------------------------------------------------------------

    def process(
        self, arrow_batch: pa.RecordBatch, metrics: ChainMetrics | None = None
    ) -> tuple[pa.RecordBatch, BatchCounts]:
        """Transform one input batch; returns the output batch and its counts.

        Per-transform figures are added to ``metrics`` when given.
        """
        failures = _Failures(self.policy)
        allow_deep_recursion()
        with gc_paused():
            batch = RecordBatch.from_arrow(arrow_batch)
            batch = self._source_failures(arrow_batch, batch, failures)
            batch = self._decode(batch, failures)
            batch = self.chain.apply_batch(batch, failures, metrics)
            batch = self._value_failures(batch, failures)
            batch = self._encode(batch, failures)
            batch, records = self._put_failures(batch, failures, arrow_batch)
        output = self._output(arrow_batch, records, batch.origins(), failures)
        return output, self._count(arrow_batch.num_rows, batch, failures)

    def decode(self, arrow_batch: pa.RecordBatch) -> tuple[RecordBatch, dict[int, FailedRecord]]:
        """The records as the chain's first stage receives them, and the failed ones by input row.

        What :meth:`process` does before the chain, every failure set aside
        (none raised, none logged): for a preview of the chain's stages.
        """
        failures = _Failures(dataclasses.replace(self.policy, tolerance="all", log_enable=False))
        batch = RecordBatch.from_arrow(arrow_batch)
        batch = self._source_failures(arrow_batch, batch, failures)
        return self._decode(batch, failures), failures.records

    def _source_failures(self, arrow_batch: pa.RecordBatch, batch: RecordBatch, failures: _Failures) -> RecordBatch:
        # A source marks a row it could not read (a malformed line, say) with
        # a message in SOURCE_ERROR_COLUMN; it fails at TASK_POLL, like any
        # other stage, and goes to the dead-letter queue as read.
        if SOURCE_ERROR_COLUMN not in arrow_batch.schema.names:
            return batch
        messages = arrow_batch.column(SOURCE_ERROR_COLUMN).to_pylist()
        for row, message in enumerate(messages):
            if message is not None:
                failures.failed(
                    row,
                    StageError(
                        Stage.TASK_POLL, self.source_class, SourceRecordError(message), record=batch.record(row)
                    ),
                )
        return _without_failed(batch, failures)

    def _decode(self, batch: RecordBatch, failures: _Failures) -> RecordBatch:
        for column, converter, stage in (
            ("key", self.key_converter, Stage.KEY_CONVERTER),
            ("value", self.value_converter, Stage.VALUE_CONVERTER),
        ):
            if converter.passthrough or not batch.has_column(column):
                continue
            if converter.null_is_null and _all_null(batch, column):
                # Null bytes read as null values without schemas: no call per row.
                batch.set_column(column, [None] * len(batch))
                continue
            errors: list[tuple[int, BaseException]] = []
            schemas, values = converter.to_connect_batch(
                batch.topic,
                batch.column(column),
                lambda row, exc: errors.append((row, exc)),  # noqa: B023 - called before the loop moves on
            )
            padded = bool(errors) and schemas is None
            if padded:
                # Every row failed (a registry outage): keep the schemas a retry brings back.
                schemas = [None] * len(values)
            for row, exc in errors:
                self._retry_or_fail(row, exc, converter, stage, batch, column, schemas, values, failures)
            if padded and all(schema is None for schema in schemas):
                schemas = None
            # A converter whose values are all new hands them to the batch, so the
            # chain's map transforms may update them in place (see smt.batch).
            batch.set_column(column, values, owned=converter.fresh_values and isinstance(values, list))
            if schemas is not None:
                batch.set_column(f"{column}_schema", schemas)
        return _without_failed(batch, failures)

    def _retry_or_fail(self, row, exc, converter, stage, batch, column, schemas, values, failures) -> None:
        # A retriable failure (a schema registry that is down) is retried for
        # that record as errors.retry.* allows; anything else fails the record.
        if isinstance(exc, RetriableError) and self.policy.retry_timeout_ms != 0:
            data = batch.column(column)[row]
            try:
                schema, values[row] = with_retries(
                    self.policy, lambda: converter.to_connect_data(batch.topic[row], data)
                )
                if schemas is not None:
                    schemas[row] = schema
                return
            except Exception as final:
                exc = final
        failures.failed(
            batch.origin[row], StageError(stage, type(converter).class_name(), exc, record=batch.record(row))
        )

    def _encode(self, batch: RecordBatch, failures: _Failures) -> RecordBatch:
        for column, converter, stage in (
            ("key", self.key_converter, Stage.KEY_CONVERTER),
            ("value", self.value_converter, Stage.VALUE_CONVERTER),
        ):
            if (converter.passthrough and batch.is_arrow(column)) or column not in self._written:
                continue
            schemas = None if batch.is_arrow(f"{column}_schema") else batch.column(f"{column}_schema")
            if column == "value" and self.value_encoding is not None:
                encoded = self.value_encoding.encode_values(batch.topic, schemas, batch.column(column))
                if encoded is not None:  # the sink reads its own encoding back (ValueEncoding)
                    batch.set_column(column, encoded)
                    continue
            if converter.null_is_null and _all_null(batch, column) and _all_none(schemas):
                # Null values without schemas write as null bytes: no call per row.
                batch.set_column(column, pa.nulls(len(batch), pa.binary()))
                continue
            on_error = failures.converter_sink(stage, converter, batch)
            encoded = converter.from_connect_column(batch.topic, schemas, batch.column(column), on_error)
            batch.set_column(column, encoded)
        if not batch.is_arrow("headers") and "headers" in self._written:
            self._encode_headers(batch, failures)
        return _without_failed(batch, failures)

    def _encode_headers(self, batch: RecordBatch, failures: _Failures) -> None:
        converter = self.header_converter
        headers = list(batch.headers)  # a new list: columns may be shared between batches
        topics = batch.topic
        for row, row_headers in enumerate(headers):
            if all(isinstance(value, (bytes, type(None))) for _, value in row_headers):
                continue
            try:
                headers[row] = tuple(
                    (
                        name,
                        value
                        if isinstance(value, (bytes, type(None)))
                        else converter.from_connect_header(topics[row], name, None, value),
                    )
                    for name, value in row_headers
                )
            except Exception as exc:
                failures.failed(
                    batch.origin[row],
                    StageError(Stage.HEADER_CONVERTER, type(converter).class_name(), exc, record=batch.record(row)),
                )
        batch.set_column("headers", headers)

    def _value_failures(self, batch: RecordBatch, failures: _Failures) -> RecordBatch:
        # The sink judges the transformed values before they are encoded (a table's columns
        # against their schemas); the records it names fail at TASK_PUT, as below.
        if self.record_checks is None or not len(batch) or not batch.has_column("value"):
            return batch
        schemas = batch.column("value_schema") if batch.has_column("value_schema") else None
        checks = self.record_checks
        problems = sorted(checks.value_errors(batch.topic, schemas, batch.value), key=lambda problem: problem[0])
        if not problems:
            return batch
        for row, exc in problems:
            failures.failed(
                batch.origin[row], StageError(Stage.TASK_PUT, self.sink_class, exc, record=batch.record(row))
            )
        return _without_failed(batch, failures)

    def _put_failures(
        self, batch: RecordBatch, failures: _Failures, arrow_batch: pa.RecordBatch
    ) -> tuple[RecordBatch, pa.RecordBatch]:
        # The sink sees the records as it will receive them (serialized, only
        # the fields it writes, knowing which the chain routed) and names those
        # it cannot write; they fail at TASK_PUT, like any other stage, instead
        # of failing the whole write.
        records = batch.to_arrow(self.output_fields)
        if self.record_checks is None or not len(batch):
            return batch, records
        checks = self.record_checks
        records = checks.prepare_records(records, _routed(records, arrow_batch, batch))
        problems = sorted(checks.record_errors(records), key=lambda problem: problem[0])
        if not problems:
            return batch, records
        for row, exc in problems:
            failed = batch.take([row]).record(0)
            failures.failed(batch.origin[row], StageError(Stage.TASK_PUT, self.sink_class, exc, record=failed))
        keep = _kept_rows(batch, failures)
        return batch.take(keep), records.take(pa.array(keep, pa.int64()))

    # --- accounting and output -------------------------------------------------

    def _count(self, read: int, batch: RecordBatch, failures: _Failures) -> BatchCounts:
        written = distinct_origins(batch.origins())
        failed = len(failures.records)
        return BatchCounts(
            read=read,
            written=written,
            output_rows=len(batch),
            filtered=read - written - failed,
            failed=failed,
            dead_lettered=failed - failures.undeliverable if self.dead_letter_rows else 0,
        )

    @property
    def _written(self) -> tuple[str, ...]:
        return self.output_fields or KAFKA_ROW_FIELDS

    def _output(
        self, arrow_batch: pa.RecordBatch, records: pa.RecordBatch, origins, failures: _Failures
    ) -> pa.RecordBatch:
        records = with_extras(records, arrow_batch, origins)
        if self.error_columns:
            records = with_error_columns(records, None)
        records = records.append_column(DEAD_LETTER_COLUMN, pa.array(np.zeros(records.num_rows, dtype=bool)))
        if not failures.records or not self.dead_letter_rows:
            return records
        dead = self._dead_letters(arrow_batch, failures)
        return pa.Table.from_batches([records, dead]).combine_chunks().to_batches()[0]

    def _dead_letters(self, arrow_batch: pa.RecordBatch, failures: _Failures) -> pa.RecordBatch:
        origins = sorted(failures.records)
        originals = RecordBatch.from_arrow(arrow_batch).take(origins)
        if self.policy.context_headers:
            headers = originals.headers
            for row, origin in enumerate(origins):
                failure = failures.records[origin]
                headers[row] = tuple(headers[row]) + tuple(
                    context_headers(failure.error, originals.record(row), self.policy, self.task_id)
                )
        dead, origins = self._deliverable(originals.to_arrow(), origins, failures)
        dead = with_extras(dead, arrow_batch, origins)
        if self.error_columns:
            dead = with_error_columns(dead, [failures.records[origin].error for origin in origins])
        return dead.append_column(DEAD_LETTER_COLUMN, pa.array([True] * dead.num_rows, pa.bool_()))

    def _deliverable(
        self, dead: pa.RecordBatch, origins: list[int], failures: _Failures
    ) -> tuple[pa.RecordBatch, list[int]]:
        # A dead letter the queue cannot take (larger than its producer allows)
        # would fail the whole dead-letter write: it is logged and dropped
        # instead, as Kafka Connect's dead-letter reporter does.
        if self.dead_letter_checks is None:
            return dead, origins
        refused = dict(self.dead_letter_checks.record_errors(dead))
        if not refused:
            return dead, origins
        for row, exc in sorted(refused.items()):
            log_undeliverable(self.policy, failures.records[origins[row]].error, exc)
        failures.undeliverable = len(refused)
        kept = [row for row in range(dead.num_rows) if row not in refused]
        return dead.take(pa.array(kept, pa.int64())), [origins[row] for row in kept]


def _routed(records: pa.RecordBatch, arrow_batch: pa.RecordBatch, batch: RecordBatch):
    """Which output records the chain routed (see :mod:`smt.pipeline.routing`)."""

    def topics(arrow: pa.RecordBatch):
        return arrow.column("topic") if "topic" in arrow.schema.names else None

    return routed_rows(topics(records), topics(arrow_batch), batch.origins())


def _all_null(batch: RecordBatch, column: str) -> bool:
    """True when every row of ``column`` is null (checked without converting an Arrow column)."""
    if batch.is_arrow(column):
        return batch.arrow_column(column).null_count == len(batch)
    return _all_none(batch.column(column))


def _all_none(values: list | None) -> bool:
    return values is None or not values or (values[0] is None and values.count(None) == len(values))


def _without_failed(batch: RecordBatch, failures: _Failures) -> RecordBatch:
    if not failures.records:
        return batch
    keep = _kept_rows(batch, failures)
    if len(keep) == len(batch):
        return batch
    return batch.take(keep)


def _kept_rows(batch: RecordBatch, failures: _Failures) -> list[int]:
    """The rows whose input record has not failed."""
    failed = failures.records
    return [row for row, origin in enumerate(batch.origin) if origin not in failed]
