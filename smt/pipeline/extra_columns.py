"""Columns that travel with a record through the pipeline, beside the Kafka row layout.

A DataFrame given to :func:`smt.spark.transform` may carry its own columns (an
id, a partitioning column): each output row gets its input row's values (a
fan-out copies them to every output), a dead letter keeps them, a dropped
record takes them along.  Dead letters may also carry why they failed
(:data:`ERROR_COLUMNS`).
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pyarrow as pa

from smt.errors import StageError
from smt.record import KAFKA_ROW_FIELDS

__all__ = ["ERROR_COLUMNS", "INTERNAL_PREFIX", "extra_columns", "with_error_columns", "with_extras"]

#: Columns named with this prefix are the pipeline's own, never a record's.
INTERNAL_PREFIX = "_smt_"

#: Why each dead letter failed: stage, plugin class, exception class, message (null on written records).
ERROR_COLUMNS = ("error_stage", "error_class", "error_exception", "error_message")


def extra_columns(names: Iterable[str]) -> list[str]:
    """The columns of ``names`` that travel with their record: neither Kafka row fields nor internal."""
    return [name for name in names if name not in KAFKA_ROW_FIELDS and not name.startswith(INTERNAL_PREFIX)]


def with_extras(rows: pa.RecordBatch, arrow_batch: pa.RecordBatch, origins) -> pa.RecordBatch:
    """``rows`` with the extra columns of ``arrow_batch``, each row given its origin's values."""
    names = extra_columns(arrow_batch.schema.names)
    if not names:
        return rows
    extras = arrow_batch.select(names)
    if not (isinstance(origins, range) and origins == range(arrow_batch.num_rows)):
        extras = extras.take(pa.array(np.asarray(origins, dtype=np.int64)))
    for name, column in zip(names, extras.columns):
        rows = rows.append_column(extras.schema.field(name), column)
    return rows


def with_error_columns(rows: pa.RecordBatch, errors: list[StageError] | None) -> pa.RecordBatch:
    """``rows`` with :data:`ERROR_COLUMNS`: each failed record's stage, plugin class, exception and message.

    ``errors`` None: rows that did not fail (all null).
    """
    if errors is None:
        columns = [pa.nulls(rows.num_rows, pa.string())] * len(ERROR_COLUMNS)
    else:
        columns = [
            pa.array([e.stage.value for e in errors], pa.string()),
            pa.array([e.plugin_class for e in errors], pa.string()),
            pa.array([f"{type(e.cause).__module__}.{type(e.cause).__qualname__}" for e in errors], pa.string()),
            pa.array([str(e.cause) for e in errors], pa.string()),
        ]
    for name, column in zip(ERROR_COLUMNS, columns):
        rows = rows.append_column(name, column)
    return rows
