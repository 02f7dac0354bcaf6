"""What :func:`smt.spark.transform` returns: the records, the dead letters, and the counts."""

from __future__ import annotations

import dataclasses
from typing import Any

from smt.errors import SmtError
from smt.metrics import ChainMetrics
from smt.pipeline.counts import COUNTS_COLUMN, CountsLayout, observed_sums, observed_values
from smt.pipeline.extra_columns import ERROR_COLUMNS
from smt.pipeline.processor import DEAD_LETTER_COLUMN, BatchCounts

__all__ = ["TransformResult"]

#: How long metrics() waits for a classic session's listener to deliver the sums of an action just finished.
_LISTENER_DELAY_S = 2.0


class TransformResult:
    """The outcome of applying a chain to a DataFrame; nothing runs until an action does.

    ``records`` and ``dead_letters`` are two views of one computation: an
    action on either runs the chain over the whole input (both, without
    :meth:`persist`, run it twice).  :meth:`metrics` gives the counts of the
    first action that ran (batch), or of a streaming query's micro-batches.
    """

    def __init__(
        self,
        output: Any,
        layout: CountsLayout,
        observation: Any,
        observation_name: str,
        input_types: dict[str, str] | None = None,
    ) -> None:
        self._output = output
        #: Kafka row fields the input had in other types (a string ``value``): dead letters get them back.
        self._input_types = dict(input_types or {})
        self._layout = layout
        self._observation = observation
        self._observation_name = observation_name

    @property
    def records(self):
        """The transformed records: the Kafka row fields (``key`` and ``value`` as binary), then the input's own columns.

        A fan-out gives several rows with the same own columns; a dropped
        record gives none.
        """
        from pyspark.sql import functions as F

        return self._output.where(~F.col(DEAD_LETTER_COLUMN)).drop(DEAD_LETTER_COLUMN, COUNTS_COLUMN, *ERROR_COLUMNS)

    @property
    def dead_letters(self):
        """The input records that failed (``errors.tolerance=all``), as they were read, with their own columns.

        A Kafka row field keeps the input's type (a string ``value`` stays a
        string).

        Each also has ``error_stage`` (TRANSFORMATION, VALUE_CONVERTER, ...),
        ``error_class`` (the transform or converter class), ``error_exception``
        (the exception class) and ``error_message``; with
        ``errors.deadletterqueue.context.headers.enable=true`` Kafka Connect's
        ``__connect.errors.*`` headers too.  Empty with ``errors.tolerance=none``:
        the first failure then fails the Spark job instead.
        """
        from pyspark.sql import functions as F

        dead = self._output.where(F.col(DEAD_LETTER_COLUMN)).drop(DEAD_LETTER_COLUMN, COUNTS_COLUMN)
        if not self._input_types:
            return dead
        return dead.withColumns({name: F.col(name).cast(ddl) for name, ddl in self._input_types.items()})

    def persist(self, *storage_level: Any) -> "TransformResult":
        """Keep the computed output (records and dead letters) for later actions; returns ``self``.

        Writing both ``records`` and ``dead_letters`` then runs the chain once.
        """
        self._output = self._output.persist(*storage_level)
        return self

    def unpersist(self) -> "TransformResult":
        self._output = self._output.unpersist()
        return self

    def metrics(self, query: Any = None) -> dict[str, Any]:
        """Counts for the pipeline and for each transform.

        ``{"records": {"read", "written", "output_rows", "filtered", "failed",
        "dead_lettered"}, "transforms": {alias: {"records_in", "records_out",
        "dropped", "errors", "seconds"}}}``.  Every record read is written,
        filtered or failed.  A batch result counts the first action that ran
        over it (raises :class:`smt.errors.SmtError` when none has); a
        streaming result needs its ``query`` and adds up the micro-batches in
        the query's recent progress (Spark keeps the last 100 by default,
        ``spark.sql.streaming.numRecentProgressUpdates``).
        """
        if self._observation is None:
            counts, stages = self._streaming_totals(query)
        else:
            observed = observed_sums(self._observation, wait_s=_LISTENER_DELAY_S)
            if observed is None:
                raise SmtError(
                    "no metrics yet: run an action (a write, count(), collect()) on result.records or "
                    "result.dead_letters first"
                )
            if not observed:
                raise SmtError(
                    "metrics unknown: the first action on result.records or result.dead_letters did not run "
                    "the records through the counts (Spark's plan skipped them); run one that reads them all"
                )
            counts, stages = self._layout.totals(observed)
        return {"records": dataclasses.asdict(counts), "transforms": stages.as_dict()}

    def _streaming_totals(self, query: Any) -> tuple[BatchCounts, ChainMetrics]:
        if query is None:
            raise SmtError(
                "a streaming result's metrics come from its query: result.metrics(query), "
                "with the StreamingQuery that writes result.records"
            )
        counts, stages = BatchCounts(), ChainMetrics()
        for progress in query.recentProgress:
            observed = (progress.observedMetrics or {}).get(self._observation_name)
            if observed is not None:
                batch_counts, batch_stages = self._layout.totals(observed_values(observed))
                counts.add(batch_counts)
                stages.merge(batch_stages)
        return counts, stages
