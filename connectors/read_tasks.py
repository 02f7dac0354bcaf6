"""Read tasks: a source's input, read inside the pipeline's own Python tasks.

Spark's readers run in the JVM, so a pipeline over them moves every record
from the JVM into Python (for the transforms) and back.  A source that can
read its input with Arrow in Python offers :class:`smt.connector.ReadTask` pieces instead
(:meth:`smt.connector.Source.read_tasks`): each Spark task reads its piece,
transforms the batches where they were read, and hands Spark only the
results.  Records cross between Python and the JVM once, not three times.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from smt.batch import KAFKA_ARROW_SCHEMA

__all__ = ["constant_strings", "empty_headers", "kafka_batch"]

_HEADERS_TYPE = KAFKA_ARROW_SCHEMA.field("headers").type


def kafka_batch(length: int, **columns: pa.Array) -> pa.RecordBatch:
    """A Kafka-layout batch of ``length`` rows: the given columns, every other one null.

    ``headers`` defaults to empty lists rather than null: Spark moves a null
    ``array<struct>`` many times slower than an empty one.
    """
    arrays = []
    for field in KAFKA_ARROW_SCHEMA:
        array = columns.get(field.name)
        if array is None:
            array = empty_headers(length) if field.name == "headers" else pa.nulls(length, field.type)
        arrays.append(array)
    return pa.RecordBatch.from_arrays(arrays, schema=KAFKA_ARROW_SCHEMA)


def constant_strings(text: str, length: int) -> pa.Array:
    """``length`` copies of ``text`` as a string array, built without a Python loop."""
    data = text.encode("utf-8")
    offsets = np.arange(length + 1, dtype=np.int32) * len(data)
    return pa.Array.from_buffers(pa.string(), length, [None, pa.py_buffer(offsets), pa.py_buffer(data * length)])


def empty_headers(length: int) -> pa.Array:
    """``length`` empty header lists."""
    offsets = pa.array(np.zeros(length + 1, dtype=np.int32))
    return pa.ListArray.from_arrays(offsets, pa.array([], _HEADERS_TYPE.value_type), type=_HEADERS_TYPE)
