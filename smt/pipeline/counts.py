"""Counts that come back from the executors without accumulators, on classic and Spark Connect sessions.

Spark Connect has no accumulators (no ``SparkContext`` at all), so each
batch's figures travel with the data: after the output rows of a batch, the
Python task emits one *counts row*, whose :data:`COUNTS_COLUMN` holds the
batch's :class:`~smt.pipeline.processor.BatchCounts` and per-transform
figures as one string of comma-separated integers (null on every other row;
its dead-letter flag is null too, so neither the sink nor the dead-letter
queue sees it).  A string, because every PySpark from 4.0 on hands an
observed string back as a ``str`` (4.0's classic ``Observation`` leaves a
list as a Java object).
``DataFrame.observe`` collects the counts rows while the output is written
(one cheap aggregate; a sum per figure costs a third of a simple pipeline's
throughput), and the driver adds them up from an ``Observation`` (batch
runs) or from each micro-batch's progress (streaming queries).

A column of null strings costs four bytes a row between Python and the JVM
(Arrow offsets); a struct of numbers would cost eight bytes per field.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Mapping

import pyarrow as pa

from smt.metrics import ChainMetrics, StageMetrics
from smt.pipeline.processor import BatchCounts

__all__ = ["COUNTS_COLUMN", "CountsLayout", "LiveCounts", "observed_sums", "observed_values"]

COUNTS_COLUMN = "_smt_counts"

_ARROW_TYPE = pa.string()
_STAGE_FIELDS = [f.name for f in dataclasses.fields(StageMetrics)]


class CountsLayout:
    """Where each figure sits in the counts array: the batch counts, then each stage's figures in chain order.

    Seconds travel as whole microseconds.  Built on the driver from the chain's
    stage aliases; pickled to the executors with the batch step.
    """

    def __init__(self, aliases: tuple[str, ...]) -> None:
        self.aliases = tuple(aliases)
        self._count_fields = [f.name for f in dataclasses.fields(BatchCounts)]
        self._names = [
            *self._count_fields,
            *(f"{index}.{field}" for index in range(len(aliases)) for field in _STAGE_FIELDS),
        ]

    #: Spark SQL type of :data:`COUNTS_COLUMN`.
    SPARK_TYPE = "string"

    # --- on the executors --------------------------------------------------

    def without_counts(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        """An output batch with a null counts column."""
        return batch.append_column(pa.field(COUNTS_COLUMN, _ARROW_TYPE), pa.nulls(batch.num_rows, _ARROW_TYPE))

    def counts_row(self, schema: pa.Schema, counts: BatchCounts, stages: ChainMetrics) -> pa.RecordBatch:
        """One row of ``schema`` (an output batch's, counts column included): nulls and the figures."""
        values = [getattr(counts, name) for name in self._count_fields]
        for alias in self.aliases:
            figures = stages.get(alias) or StageMetrics()
            values.extend(_whole(getattr(figures, field), field) for field in _STAGE_FIELDS)
        arrays = [pa.nulls(1, field.type) for field in schema if field.name != COUNTS_COLUMN]
        arrays.append(pa.array([",".join(map(str, values))], _ARROW_TYPE))
        names = [field.name for field in schema if field.name != COUNTS_COLUMN] + [COUNTS_COLUMN]
        return pa.RecordBatch.from_arrays(arrays, schema=pa.schema([schema.field(n) for n in names]))

    # --- on the driver -------------------------------------------------------

    def sums(self) -> list:
        """The aggregate column ``DataFrame.observe`` takes: every counts row of the output, joined by ';'.

        One cheap aggregate over every row (a null is skipped), rather than one
        sum per figure: the driver adds the few rows up (one per batch).
        """
        from pyspark.sql import functions as F

        return [F.concat_ws(";", F.collect_list(F.col(COUNTS_COLUMN))).alias(COUNTS_COLUMN)]

    def totals(self, observed: Mapping[str, Any]) -> tuple[BatchCounts, ChainMetrics]:
        """The run's (or micro-batch's) counts and per-transform figures from the observed counts rows."""
        values = [0] * len(self._names)
        for row in filter(None, (observed.get(COUNTS_COLUMN) or "").split(";")):
            values = [total + int(value) for total, value in zip(values, row.split(","))]
        counts = BatchCounts(**dict(zip(self._count_fields, values)))
        stages = ChainMetrics()
        offset = len(self._count_fields)
        for index, alias in enumerate(self.aliases):
            figures = values[offset + index * len(_STAGE_FIELDS) : offset + (index + 1) * len(_STAGE_FIELDS)]
            metrics = StageMetrics(**dict(zip(_STAGE_FIELDS, figures)))
            metrics.seconds = metrics.seconds / 1e6
            stages[alias] = metrics
        return counts, stages


def _whole(value: float | int, field: str) -> int:
    return round(value * 1e6) if field == "seconds" else int(value)


def observed_sums(observation: Any, wait_s: float = 0.0) -> dict[str, Any] | None:
    """An ``Observation``'s sums, or None when no action has reported them (within ``wait_s``).

    A Connect client receives them with the action's own response; a classic
    session's listener delivers them just after the action returns, and its
    ``get`` would wait forever for an action that never runs.  An empty dict:
    the first action over the observed rows did not run the observing step
    (Spark 4.1 then completes the observation with no metrics, and PySpark's
    ``get`` fails on it), so the sums are unknown, not zero.
    """
    from smt.sessions import is_connect

    if is_connect(observation):
        return observation.get or None
    future = observation._jo.future()
    deadline = time.monotonic() + wait_s
    while not future.isCompleted():
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.01)
    if future.value().get().get().length() == 0:
        return {}
    return observation.get


def observed_values(row: Any) -> dict[str, Any]:
    """A streaming progress's observed metrics row as a dict.

    A classic session gives a ``Row`` of the named sums; Spark Connect (4.x)
    gives ``Row(values=[...], schema={...})`` with the names in the schema.
    """
    data = row.asDict() if hasattr(row, "asDict") else dict(row)
    if set(data) == {"values", "schema"} and isinstance(data["schema"], Mapping):
        names = [field["name"] for field in data["schema"]["fields"]]
        return dict(zip(names, data["values"]))
    return data


class LiveCounts:
    """Spark accumulators of the running counts, for a live progress line (classic sessions only).

    The final figures come from :class:`CountsLayout`; these only show how far
    a running job has got.
    """

    def __init__(self, spark) -> None:
        context = spark.sparkContext
        self._fields = [f.name for f in dataclasses.fields(BatchCounts)]
        self._accumulators = {name: context.accumulator(0) for name in self._fields}

    def add(self, counts: BatchCounts) -> None:
        for name, accumulator in self._accumulators.items():
            value = getattr(counts, name)
            if value:
                accumulator.add(value)

    def snapshot(self) -> BatchCounts:
        return BatchCounts(**{name: acc.value for name, acc in self._accumulators.items()})
