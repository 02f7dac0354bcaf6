"""A local SparkSession for tests and benchmarks: ``local[2]``, UTC, loopback, no UI.

Its Python workers are separate processes: they get this interpreter, and the
project's folder on ``PYTHONPATH``, so a checkout that is not installed is
importable there too.
"""

from __future__ import annotations

import os
import sys
from typing import Mapping

__all__ = ["local_spark"]

#: The folder that holds the ``smt`` package (a checkout's root).
_PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def local_spark(app_name: str, conf: Mapping[str, str] | None = None, project_root: str = _PROJECT_ROOT):
    """The session (Spark's ``getOrCreate``, so an active one is reused); ``conf`` adds settings."""
    from pyspark.sql import SparkSession

    _python_for_workers(project_root)
    builder = (
        SparkSession.builder.master("local[2]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        # Delta's log replay in as many tasks as cores, as smt.pipeline.session gives a local run.
        .config("spark.databricks.delta.snapshotPartitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        # PySpark records the Python call site of each column operation, for error messages that name
        # the user's line: several JVM calls per operation, and the lines would be ours, not theirs.
        .config("spark.python.sql.dataFrameDebugging.enabled", "false")
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def _python_for_workers(project_root: str) -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if project_root not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([project_root, *paths])
