"""Run SQL statements and pipeline files in turn, in one Spark session of its own, printing the statements' rows.

``python -m tests.connectors.table.follow_table STEP...``: a step
``run:pipeline.properties`` runs that pipeline; any other step is a SQL
statement, whose rows are printed as one JSON line each.  The session is
built for the first pipeline named (the Delta or Iceberg jars and settings it
asks for), so a test can grow a table between two streaming runs without
starting a JVM for each.
"""

from __future__ import annotations

import json
import sys

from smt.pipeline import PipelineSpec, run_pipeline
from smt.pipeline.session import build_spark_session


def main(*steps: str) -> None:
    specs = {step: PipelineSpec.from_properties(step[4:]) for step in steps if step.startswith("run:")}
    spark = build_spark_session(next(iter(specs.values())))
    try:
        for step in steps:
            if step in specs:
                run_pipeline(specs[step], spark=spark)
            else:
                for row in spark.sql(step).collect():
                    print(json.dumps(list(row), default=str))
    finally:
        spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
