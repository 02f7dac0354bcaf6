"""A user's DataFrame in the Kafka row layout, with its own columns alongside.

``value`` is required (string or binary); ``key``, ``topic``, ``partition``,
``offset``, ``timestamp``, ``timestampType`` and ``headers`` are used when
present (cast to the layout's types) and take defaults when absent: an empty
topic and no headers, null for the rest.  Every other column travels with
its record (:mod:`smt.pipeline.extra_columns`).
"""

from __future__ import annotations

from typing import Any

from smt.errors import ConfigError, ConfigProblem
from smt.pipeline.extra_columns import ERROR_COLUMNS, INTERNAL_PREFIX
from smt.record import KAFKA_ROW_FIELDS, KAFKA_ROW_TYPES

__all__ = ["cast_fields", "kafka_rows"]

_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
_HEADER_TYPES = ("array<struct<key:string,value:binary>>", "array<struct<key:string,value:string>>")

#: Field → the Spark types (``simpleString``) accepted for it.
_ACCEPTED = {
    "key": ("binary", "string"),
    "value": ("binary", "string"),
    "topic": ("string",),
    "partition": _INTEGRAL,
    "offset": _INTEGRAL,
    "timestamp": ("timestamp", "timestamp_ntz"),
    "timestampType": _INTEGRAL,
    "headers": _HEADER_TYPES,
}


def kafka_rows(df: Any) -> Any:
    """``df`` with the Kafka row fields it has cast to the layout's types, defaults, then its own columns.

    Raises :class:`smt.errors.ConfigError` naming each column that cannot be
    used: a missing ``value``, a field of the wrong type, a column whose name
    the pipeline keeps for itself.
    """
    from pyspark.sql import functions as F

    types = {field.name: field.dataType.simpleString() for field in df.schema.fields}
    problems = _problems(types)
    if problems:
        raise ConfigError(problems)
    columns = []
    for name in KAFKA_ROW_FIELDS:
        if name in types:
            column = F.col(name)
            columns.append(
                column if types[name] == KAFKA_ROW_TYPES[name] else column.cast(KAFKA_ROW_TYPES[name]).alias(name)
            )
        elif name == "topic":
            columns.append(F.lit("").alias(name))
        elif name == "headers":
            # Spark moves an empty array faster than a null one.
            columns.append(F.array().cast(KAFKA_ROW_TYPES[name]).alias(name))
    columns += [F.col(f"`{name}`") for name in df.columns if name not in KAFKA_ROW_FIELDS]
    return df.select(*columns)


def cast_fields(df: Any) -> dict[str, str]:
    """The Kafka row fields of ``df`` that :func:`kafka_rows` casts: name → their type in ``df``."""
    types = {field.name: field.dataType.simpleString() for field in df.schema.fields}
    return {name: types[name] for name in KAFKA_ROW_FIELDS if name in types and types[name] != KAFKA_ROW_TYPES[name]}


def _problems(types: dict[str, str]) -> list[ConfigProblem]:
    problems = []
    if "value" not in types:
        problems.append(
            ConfigProblem(
                "value",
                f"the DataFrame needs a 'value' column (string or binary); its columns: {', '.join(types) or 'none'}",
            )
        )
    for name, accepted in _ACCEPTED.items():
        if name in types and types[name] not in accepted:
            problems.append(ConfigProblem(name, f"column '{name}' is {types[name]}; expected {' or '.join(accepted)}"))
    for name in types:
        if name.startswith(INTERNAL_PREFIX):
            problems.append(
                ConfigProblem(name, f"column names starting with '{INTERNAL_PREFIX}' are the pipeline's own; rename it")
            )
        elif name in ERROR_COLUMNS:
            problems.append(
                ConfigProblem(
                    name,
                    f"column '{name}' would clash with the dead letters' error columns "
                    f"({', '.join(ERROR_COLUMNS)}); rename it",
                )
            )
    return problems
