"""Runs the pipeline and discards the records (``sink=noop``): for benchmarks and dry runs.

Every record is still read, converted, transformed and counted, and dead
letters still reach their queue; only the writing is skipped (Spark's
``noop`` data source).  ``fields`` limits which record fields are produced at
all, so a benchmark can match a hand-written job that only computes values.
"""

from __future__ import annotations

from smt.config import ConfigDef, ConfigType, Importance
from smt.connector import Sink
from smt.record import KAFKA_ROW_FIELDS


def _kafka_fields(value) -> None:
    unknown = [name for name in value if name not in KAFKA_ROW_FIELDS]
    if unknown:
        raise ValueError(f"not record fields: {', '.join(unknown)}; known: {', '.join(KAFKA_ROW_FIELDS)}")


class NoopSink(Sink):
    """Processes every record and writes nothing (Spark's ``noop`` format)."""

    name = "noop"
    config_def = ConfigDef().define(
        "fields",
        ConfigType.LIST,
        [],
        _kafka_fields,
        Importance.LOW,
        "Record fields to produce before discarding them (default: all of them).",
    )

    def output_fields(self):
        return frozenset(self.config["fields"]) or None

    def write(self, df, batch_id=None):
        df.write.format("noop").mode("overwrite").save()
