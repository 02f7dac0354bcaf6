"""The records of a write that took the pipeline's compiled path (:mod:`smt.compiled`), in the table sink.

They arrive in the DataFrame ``write`` is given, beside the Python path's
typed JSON lines (:mod:`connectors.table.typed_json`): a struct column per
compiled schema, of :meth:`~connectors.table.sink.TableSink.compiled_type`
(see :class:`smt.connector_roles.CompiledInput`).  They go into the table
in the same write: one commit, one ``txnVersion``.  Their types are their
columns'; only the Python records whose types the plan could not tell are
read for theirs.
"""

from __future__ import annotations

import functools
from typing import Sequence

from pyspark.sql import functions as F
from pyspark.sql import types as T

from connectors.table.typed_json import type_line
from smt.compiled import TYPE_KNOWN_COLUMN

__all__ = ["compiled_rows", "python_records", "type_lines", "with_compiled"]


def type_lines(df, compiled: list[str]) -> list[str]:
    """The distinct type lines of the write ``df``: its ``compiled`` columns' and those its Python records
    whose types the plan could not tell show."""
    lines = {_nullable(df.schema[name].dataType).json() for name in compiled}
    if TYPE_KNOWN_COLUMN in df.columns:
        # Every row reaches the shuffle (null where the type is known), not only the unknown ones: were
        # none left, Spark's adaptive plan would drop the scan of the write's cached input, and with it
        # the runner's counts (an observation completed by this job with no metrics).
        text = F.col("value").cast("string")
        unknown = df.select(F.when(~F.col(TYPE_KNOWN_COLUMN), type_line(text)).alias("t"))
        lines |= {row["t"] for row in unknown.distinct().collect() if row["t"] is not None}
    return sorted(lines)


def python_records(df, compiled: list[str]):
    """The rows of the write ``df`` that came through Python (with no compiled value)."""
    condition = F.lit(True)
    for name in compiled:
        condition = condition & F.col(name).isNull()
    return df.where(condition)


def with_compiled(rows, df, compiled: list[str], columns: T.StructType):
    """``rows`` (the Python records' table rows, of ``columns``) with the compiled rows of ``df``, as ``columns``."""
    return rows.unionByName(compiled_rows(df, compiled, columns))


def compiled_rows(df, compiled: Sequence[str], columns: T.StructType, carry: Sequence[str] = ()):
    """The compiled rows of the write ``df`` as table rows of ``columns``, with ``df``'s ``carry`` columns.

    One filter per compiled column: the optimizer prunes, in each branch of the runner's union, the
    rows that are not this column's, so each record is read by one side only."""
    parts = []
    for name in compiled:
        names = set(df.schema[name].dataType.names)
        parts.append(
            df.where(F.col(name).isNotNull()).select(
                *(
                    (F.col(name)[f.name] if f.name in names else F.lit(None)).cast(f.dataType).alias(f.name)
                    for f in columns.fields
                ),
                *carry,
            )
        )
    return functools.reduce(lambda left, right: left.unionByName(right), parts)


def _nullable(data_type: T.DataType) -> T.DataType:
    """``data_type`` with every field, element and map value nullable, as a Connect schema's type line has them."""
    if isinstance(data_type, T.StructType):
        return T.StructType([T.StructField(f.name, _nullable(f.dataType), True) for f in data_type.fields])
    if isinstance(data_type, T.ArrayType):
        return T.ArrayType(_nullable(data_type.elementType), True)
    if isinstance(data_type, T.MapType):
        return T.MapType(_nullable(data_type.keyType), _nullable(data_type.valueType), True)
    return data_type
