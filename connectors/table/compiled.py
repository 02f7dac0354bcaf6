"""The records of a write that took the pipeline's compiled path (:mod:`smt.compiled`), in the table sink.

They arrive as value columns, beside the Python path's typed JSON lines
(:mod:`connectors.table.typed_json`), and go into the table in the same
write: one commit, one ``txnVersion``.  Their types are their schemas';
only the Python path's records whose schema the plan could not tell are
read for theirs.
"""

from __future__ import annotations

from pyspark.sql import functions as F
from pyspark.sql import types as T

from connectors.table.typed_json import type_line, type_text
from smt.compiled import CompiledRows

__all__ = ["type_lines", "with_compiled"]


def type_lines(compiled: CompiledRows) -> list[str]:
    """The distinct type lines of the write: the compiled schemas' and those the Python records show."""
    lines = {type_text(schema) for schema in compiled.schemas}
    if compiled.python_types is not None:
        text = F.col("value").cast("string")
        shown = compiled.python_types.select(type_line(text).alias("t")).where(F.col("t").isNotNull()).distinct()
        lines |= {row["t"] for row in shown.collect()}
    return sorted(lines)


def with_compiled(rows, compiled: CompiledRows, columns: T.StructType):
    """``rows`` (the Python path's, of ``columns``) with the compiled rows, as ``columns``."""
    names = set(compiled.rows.columns)
    compiled_rows = compiled.rows.select(
        *(
            (F.col(f"`{field.name}`") if field.name in names else F.lit(None)).cast(field.dataType).alias(field.name)
            for field in columns.fields
        )
    )
    return rows.unionByName(compiled_rows)
