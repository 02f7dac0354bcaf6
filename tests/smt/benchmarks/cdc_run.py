"""Run the CDC benchmark's two sides once on ``RECORDS`` events, in a session of its own, and print JSON.

``python tests/smt/benchmarks/cdc_run.py WORK RECORDS``: the session has Delta's and PostgreSQL's jars and
settings, which the tests' shared session cannot take once started; the PostgreSQL server is the machine's,
started in a temporary folder.  Prints, for each row (Delta, then PostgreSQL), the comparison's record counts, the final
table's rows, and the error :func:`check_same_tables` raises for a table the changes were not merged into.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

from smt.benchmarks import cdc


def main(work: str, records: str) -> None:
    server = cdc.postgres()
    assert server is not None, "the CDC benchmark's PostgreSQL row needs PostgreSQL (scripts/install-postgresql.sh)"
    targets = [cdc.DeltaTables(work), cdc.PostgresTables(server.jdbc_url(), server.query)]
    spark = cdc.session([target.format for target in targets])
    try:
        snapshot, changes = (os.path.join(work, name) for name in ("snapshot", "changes"))
        written = cdc.write_events(snapshot, changes, int(records))
        results = []
        for tables in targets:
            cdc.run_ours(spark, snapshot, tables, tables.template)
            comparison = cdc.compare(spark, changes, tables, written, rounds=1)
            ours, baseline = (_table(tables, work, cdc.warmup_table(side)) for side in (0, 1))
            try:
                cdc.check_same_tables(spark, tables, tables.template, baseline)
                unmerged = None
            except AssertionError as exc:
                unmerged = str(exc)
            results.append(
                {
                    "name": comparison.name,
                    "records": [comparison.ours.records, comparison.baseline.records],
                    "rows": sorted(list(row) for row in tables.read(spark, ours).collect()),
                    "unmerged": unmerged,
                }
            )
        print(json.dumps(results))
    finally:
        spark.stop()
        server.stop()
        shutil.rmtree(server.state_dir, ignore_errors=True)


def _table(tables: cdc.Tables, work: str, name: str) -> str:
    """The table called ``name`` (a Delta table is a folder of ``work``)."""
    return os.path.join(work, name) if isinstance(tables, cdc.DeltaTables) else name


if __name__ == "__main__":
    main(*sys.argv[1:])
