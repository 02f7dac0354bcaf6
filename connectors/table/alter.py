"""New columns added to a catalog table with ``ALTER TABLE … ADD COLUMNS``: how an Iceberg table evolves.

Iceberg's ``mergeSchema`` write option works only on a table whose
``write.spark.accept-any-schema`` property is true (otherwise the write fails
with ``INSERT_COLUMN_ARITY_MISMATCH``), so with
``sink.schema.evolution=add_columns`` the sink adds the columns itself, the
way Iceberg documents schema evolution: top-level and nested fields, each
nullable, at the end of their struct, in one statement before the write.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import types as T

__all__ = ["add_columns", "added_columns"]


def added_columns(
    table: T.StructType, rows: T.StructType, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], T.DataType]]:
    """The fields of ``rows`` that ``table`` lacks, as (column path, type), nested ones included."""
    have = {f.name: f.dataType for f in table.fields}
    added: list[tuple[tuple[str, ...], T.DataType]] = []
    for field in rows.fields:
        here = (*path, field.name)
        if field.name not in have:
            added.append((here, field.dataType))
        elif isinstance(have[field.name], T.StructType) and isinstance(field.dataType, T.StructType):
            added.extend(added_columns(have[field.name], field.dataType, here))
    return added


def add_columns(spark: Any, table: str, rows: T.StructType) -> list[str]:
    """Add to the catalog ``table`` the columns of ``rows`` it lacks; returns their dotted names."""
    added = added_columns(spark.table(table).schema, rows)
    if added:
        columns = ", ".join(f"{_quoted(path)} {data_type.simpleString()}" for path, data_type in added)
        spark.sql(f"ALTER TABLE {table} ADD COLUMNS ({columns})")
    return [".".join(path) for path, _ in added]


def _quoted(path: tuple[str, ...]) -> str:
    return ".".join("`" + name.replace("`", "``") + "`" for name in path)
