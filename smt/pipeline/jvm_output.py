"""Spark's JVM writing its output to a log file instead of the terminal.

PySpark starts Spark's JVM with the terminal as its stdout and stderr, and
everything Spark says arrives there: the JVM's own warnings ("Using incubator
modules"), log4j's console appender (Spark's default profile logs to stderr:
the start-up banner, warnings, and each failed task's stack trace, several
times over), and the output of the Python workers, which the JVM copies to its
stderr.  :func:`start_jvm_logging_to` starts the JVM the way PySpark does
(``launch_gateway``, with the same configuration), but with both streams
appended to one file, so a run's terminal shows only what ``smt`` prints and
the whole story stays readable in the file.

It must run before the first SparkSession of the process: a running JVM keeps
its streams.
"""

from __future__ import annotations

import os
import subprocess
from typing import Mapping

__all__ = ["start_jvm_logging_to"]


def start_jvm_logging_to(log_path: str | os.PathLike, conf: Mapping[str, str]) -> bool:
    """Start Spark's JVM with ``conf``, its stdout and stderr appended to ``log_path``.

    Returns False, doing nothing, when this process already has a JVM (an
    earlier session, or ``PYSPARK_GATEWAY_PORT`` given by ``spark-submit``).
    """
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return False
    spark_conf = SparkConf(loadDefaults=False).setAll(list(conf.items()))
    with open(log_path, "ab") as log:
        # The JVM keeps its own copy of the file descriptor.
        gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": log, "stderr": subprocess.STDOUT})
    SparkContext._ensure_initialized(gateway=gateway)
    return True
