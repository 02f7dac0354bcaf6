"""Prints records to standard output, for trying pipelines out (``sink=console``).

One line per record::

    orders[0]@41 key=user-1 value={"amount": 3} headers=[trace=abc]

Bytes are shown as UTF-8 (other bytes as ``\\xNN`` escapes).  Every record is
still processed when only the first ``max.records`` are printed, so the run's
counts stay true.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from smt.config import ConfigDef, ConfigType, Importance, at_least
from smt.connector import Sink


class ConsoleSink(Sink):
    """Prints each record as one line on standard output (the first ``max.records`` of each batch)."""

    name = "console"
    config_def = (
        ConfigDef()
        .define(
            "max.records",
            ConfigType.INT,
            100,
            at_least(0),
            Importance.MEDIUM,
            "Print at most this many records per batch (0 = all); the rest are counted.",
        )
        .define("print.headers", ConfigType.BOOLEAN, True, None, Importance.LOW, "Print record headers.")
    )

    def __init__(self, out: TextIO | None = None) -> None:
        super().__init__()
        self._out = out

    def write(self, df, batch_id=None):
        out = self._out or sys.stdout
        if batch_id is not None:
            print(f"--- micro-batch {batch_id} ---", file=out)
        limit = self.config["max.records"]
        count = 0
        df = df.persist()
        try:
            # Spark reports a run's observed counts only to a SQL action; toLocalIterator is none, so the
            # records are first run through a write that is (and kept), then printed from what was kept.
            df.write.format("noop").mode("overwrite").save()
            for row in df.toLocalIterator():
                if not limit or count < limit:
                    print(format_record(row, self.config["print.headers"]), file=out)
                count += 1
        finally:
            df.unpersist()
        if limit and count > limit:
            print(f"... {count - limit} more record(s) not shown", file=out)
        out.flush()


def format_record(row: Any, with_headers: bool = True) -> str:
    """One Kafka-layout row as ``topic[partition]@offset key=... value=... headers=[...]``."""
    text = f"{row['topic']}[{row['partition']}]@{row['offset']} key={_show(row['key'])} value={_show(row['value'])}"
    if with_headers and row["headers"]:
        text += " headers=[" + ", ".join(f"{h['key']}={_show(h['value'])}" for h in row["headers"]) + "]"
    return text


def _show(data: Any) -> str:
    if data is None:
        return "null"
    return bytes(data).decode("utf-8", errors="backslashreplace")
