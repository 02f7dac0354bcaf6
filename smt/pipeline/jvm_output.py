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
its streams.  A command that starts its sessions deep inside (``smt bench``:
each area its own) uses :func:`child_output_to` instead: every process started
within it writes to the file, while this process keeps printing to the terminal.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from typing import Iterator, Mapping

__all__ = ["child_output_to", "start_jvm_logging_to"]


@contextlib.contextmanager
def child_output_to(log_path: str | os.PathLike) -> Iterator[None]:
    """Within: processes started (Spark's JVM) inherit ``log_path`` as stdout and stderr; ``sys.stdout``
    and ``sys.stderr`` still reach the terminal.

    File descriptors 1 and 2 point at the log, which children inherit at
    start; Python's own streams, when they were those descriptors, are
    reopened on copies of the terminal's.  A child started within keeps the
    log after the block.
    """
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    terminal = {fd: os.dup(fd) for fd in (1, 2)}
    shown = sys.stdout, sys.stderr
    with open(log_path, "ab") as log:
        for fd in (1, 2):
            os.dup2(log.fileno(), fd)
    sys.stdout, sys.stderr = (_on_terminal(stream, fd, terminal[fd]) for stream, fd in zip(shown, (1, 2)))
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = shown
        for fd, copy in terminal.items():
            os.dup2(copy, fd)
            os.close(copy)


def _on_terminal(stream, fd: int, copy: int):
    try:
        uses_fd = stream.fileno() == fd
    except (AttributeError, OSError, ValueError):  # a stream of its own (pytest's capture): left as it is
        return stream
    if not uses_fd:
        return stream
    return open(copy, "w", buffering=1, encoding=getattr(stream, "encoding", None) or "utf-8", closefd=False)


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
