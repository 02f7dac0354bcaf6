"""Transforms and predicates: the two kinds of plugin a chain is made of."""

from __future__ import annotations

from smt.batch import RecordBatch
from smt.plugin import Plugin
from smt.record import Record

__all__ = ["Transform", "Predicate", "ErrorSink"]


class ErrorSink:
    """Where a transform reports a record it could not process.

    ``fail(row, exc)`` takes the row's index in the batch being transformed.
    Depending on ``errors.tolerance`` it raises (stopping the pipeline) or
    records the failure (skip or dead-letter) and returns.
    """

    def fail(self, row: int, exc: BaseException) -> None:  # pragma: no cover - interface
        raise exc


class Transform(Plugin):
    """A single message transform.

    Implement :meth:`apply` (one record in; ``None`` drops it, a record
    replaces it, a list fans it out).  Transforms on the hot path also
    implement :meth:`apply_batch` to work on whole columns; the default
    calls :meth:`apply` per record.
    """

    def apply(self, record: Record) -> Record | None | list[Record]:
        raise NotImplementedError(f"{type(self).__name__} does not implement apply()")

    def input_fields(self) -> frozenset[str] | None:
        """The Kafka row fields (``key``, ``value``, ``topic``, ``headers``, ...) this
        transform reads, or ``None`` for all of them (the safe default).

        The pipeline moves only the fields someone reads or writes out between
        Spark and Python; a transform that declares them makes that possible.
        """
        return None

    def changed_fields(self) -> frozenset[str] | None:
        """The Kafka row fields this transform may change, or ``None`` for any of them (the safe default).

        Dropping or fanning out a record changes no field.  The pipeline asks
        before it runs: a chain where no transform can change ``topic`` cannot
        route records, so a Kafka sink that would write every record back into
        the topics the pipeline reads is refused up front.  What actually
        happened to each record is found while running, by comparing its topic
        with its input record's.
        """
        return None

    def apply_batch(self, batch: RecordBatch, errors: ErrorSink) -> RecordBatch:
        """Transform every row of ``batch``.

        Output rows must keep their parent's ``origin`` and the input order.
        A row that fails is reported with ``errors.fail(row, exc)`` and left
        out of the output.
        """
        out = batch.builder()
        apply = self.apply
        for row, record in enumerate(batch.records()):
            try:
                result = apply(record)
            except Exception as exc:  # each failure is attributed to its row
                errors.fail(row, exc)
                continue
            out.extend(row, result)
        return out.build()


class Predicate(Plugin):
    """A condition on a record, deciding whether a transform applies."""

    def test(self, record: Record) -> bool:
        raise NotImplementedError(f"{type(self).__name__} does not implement test()")

    def input_fields(self) -> frozenset[str] | None:
        """The Kafka row fields this predicate reads; ``None`` for all (see Transform)."""
        return None

    def test_batch(self, batch: RecordBatch) -> list[bool]:
        """One boolean per row; the default calls :meth:`test` per record."""
        return [bool(self.test(record)) for record in batch.records()]
