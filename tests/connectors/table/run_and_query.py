"""Run a pipeline file, then print a query's rows as JSON lines, in one Spark session of its own.

``python -m tests.connectors.table.run_and_query pipeline.properties[,other.properties] "SELECT ..." [RUNS]``
(each pipeline, in turn, run ``RUNS`` times, default once, before the query): the
session has what the pipeline asks for (the Delta or Iceberg jars and settings), which the
tests' shared session cannot take once started, so the table is read back where it was written.
"""

from __future__ import annotations

import json
import sys

from smt.pipeline import PipelineSpec, run_pipeline
from smt.pipeline.session import build_spark_session


def main(pipelines: str, query: str, runs: str = "1") -> None:
    specs = [PipelineSpec.from_properties(pipeline) for pipeline in pipelines.split(",")]
    spark = build_spark_session(specs[0])
    try:
        for spec in specs:
            for _ in range(int(runs)):
                run_pipeline(spec, spark=spark)
        for row in spark.sql(query).collect():
            print(json.dumps(list(row), default=str))
    finally:
        spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
