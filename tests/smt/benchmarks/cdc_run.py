"""Run the CDC benchmark's two sides once on ``RECORDS`` events, in a session of its own, and print JSON.

``python tests/smt/benchmarks/cdc_run.py WORK RECORDS``: the session has Delta's jars and settings, which
the tests' shared session cannot take once started.  Prints the comparison's record counts, the final
table's rows, and the error :func:`check_same_tables` raises for a table the changes were not merged into.
"""

from __future__ import annotations

import json
import os
import sys

from smt.benchmarks import cdc


def main(work: str, records: str) -> None:
    spark = cdc._session(work)
    try:
        snapshot, changes, template = (os.path.join(work, name) for name in ("snapshot", "changes", "template"))
        written = cdc.write_events(snapshot, changes, int(records))
        cdc.run_ours(spark, snapshot, template)
        comparison = cdc.compare(spark, changes, template, work, written, rounds=1)
        ours = spark.read.format("delta").load(cdc.warmup_table(work, 0)).select(*cdc.COLUMNS)
        try:
            cdc.check_same_tables(spark, template, cdc.warmup_table(work, 1))
            unmerged = None
        except AssertionError as exc:
            unmerged = str(exc)
        print(
            json.dumps(
                {
                    "name": comparison.name,
                    "records": [comparison.ours.records, comparison.baseline.records],
                    "rows": sorted(list(row) for row in ours.collect()),
                    "unmerged": unmerged,
                }
            )
        )
    finally:
        spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
