"""Records the ``avro`` format cannot write, found per batch before the write.

``kafka_record.avsc`` makes a header's ``key`` non-null; fastavro stops the
whole partition's file at the first record that breaks that.  (A null
``timestampType`` is written as 0 by the writer, so it needs no check.)  These records fail on their own instead, at
the TASK_PUT stage (see :meth:`smt.connector_roles.RecordChecks.record_errors`).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from smt.connector import SinkRecordError

__all__ = ["avro_record_errors"]


def avro_record_errors(records: pa.RecordBatch) -> list[tuple[int, BaseException]]:
    """``(row, error)`` for each record the Avro schema refuses; the first reason per row."""
    found: dict[int, BaseException] = {}
    names = records.schema.names
    if "headers" in names:
        headers = records.column("headers")
        header_names = pc.list_flatten(headers).flatten()[0]
        if header_names.null_count:
            parents = pc.list_parent_indices(headers).to_numpy()
            for row in np.unique(parents[_mask(pc.is_null(header_names))]):
                found.setdefault(
                    int(row),
                    SinkRecordError(
                        "a header has a null name; the avro format (kafka_record.avsc) requires header names"
                    ),
                )
    return sorted(found.items(), key=lambda item: item[0])


def _mask(mask: pa.Array) -> np.ndarray:
    return pc.fill_null(mask, False).to_numpy(zero_copy_only=False)
