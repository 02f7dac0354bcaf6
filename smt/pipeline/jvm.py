"""Telling a dead or out-of-memory Spark JVM from an ordinary job failure.

When the JVM runs out of heap (a 200 MB value in a 1 GiB driver), Spark's
uncaught-exception handler ends the process with exit code 52, and what
reaches Python is a Py4J connection error (``Connection refused``, ``does not
exist in the JVM``) or, in a session that survives, a stopped SparkContext
(``NullPointerException``).  None of those says what happened or what to
change, so :func:`jvm_failure` looks at the JVM itself and names the settings
that help.
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
from typing import Any, Iterator, Mapping

from smt.errors import SmtError, chain_text

__all__ = ["JvmFailure", "jvm_failure", "quiet_py4j_while_failing"]

#: Spark's exit code for an OutOfMemoryError (org.apache.spark.util.SparkExitCode.OOM).
_OOM_EXIT_CODE = 52

#: How long a JVM that stopped answering gets to exit and tell its exit code.
_EXIT_WAIT_SECONDS = 10

#: Spark's defaults for the settings the advice names.
_MEMORY_DEFAULT = "1g"
_BATCH_ROWS_KEY = "spark.sql.execution.arrow.maxRecordsPerBatch"


class JvmFailure(SmtError):
    """The Spark JVM ran out of memory or died; the message names the settings that help."""


def jvm_failure(exc: BaseException, spark: Any, conf: Mapping[str, str]) -> JvmFailure | None:
    """A :class:`JvmFailure` when ``exc`` comes from a JVM that ran out of memory or is gone, else ``None``.

    ``conf`` is the Spark configuration the session was built with, for the
    advice (current memory and batch size).
    """
    out_of_memory = "OutOfMemoryError" in chain_text(exc)
    stopped = _stopped(spark)
    # A JVM that stopped answering may still be on its way out: its exit code says why.
    exit_code = _exit_code(spark, wait=_EXIT_WAIT_SECONDS if stopped else 0)
    if exit_code == _OOM_EXIT_CODE:
        out_of_memory = True
    if out_of_memory:
        what = "Spark ran out of memory (java.lang.OutOfMemoryError): a record or batch did not fit in the JVM's heap"
    elif exit_code is not None:
        what = f"the Spark JVM exited (code {exit_code}) during the run, most often for lack of memory"
    elif stopped:
        what = "the SparkContext stopped during the run, most often because the JVM ran out of memory"
    else:
        return None
    return JvmFailure(f"{what}. {_advice(conf)}")


def _advice(conf: Mapping[str, str]) -> str:
    driver = conf.get("spark.driver.memory", _MEMORY_DEFAULT)
    executor = conf.get("spark.executor.memory", _MEMORY_DEFAULT)
    rows = conf.get(_BATCH_ROWS_KEY, "10000")
    return (
        f"Give Spark more memory with spark.driver.memory (now {driver}; a local run executes in the "
        f"driver) or spark.executor.memory (now {executor}; on a cluster), or send fewer records per "
        f"batch with {_BATCH_ROWS_KEY} (now {rows}); a single record larger than a few hundred MB "
        "needs the memory either way"
    )


def _exit_code(spark: Any, wait: float) -> int | None:
    """The JVM's exit code when this process started it and it has exited (waiting up to ``wait`` s)."""
    # `_sc`, not `sparkContext`: a Spark Connect session has neither a context nor a JVM here.
    gateway = getattr(getattr(spark, "_sc", None), "_gateway", None)
    process = getattr(gateway, "proc", None)
    if process is None:
        return None
    try:
        return process.wait(timeout=wait) if wait else process.poll()
    except subprocess.TimeoutExpired:
        return None


def _stopped(spark: Any) -> bool:
    java_context = getattr(getattr(spark, "_sc", None), "_jsc", None)
    if java_context is None:
        return False
    try:
        return bool(java_context.sc().isStopped())
    except Exception:  # noqa: BLE001 - a JVM that cannot be asked is not running the job
        return True


class _Py4JConnectionNoise(logging.Filter):
    """Drops Py4J's tracebacks (a lost connection, a failed Python callback) unless debugging."""

    def filter(self, record: logging.LogRecord) -> bool:
        from_py4j = "py4j" in record.pathname.replace("\\", "/").split("/")
        return not from_py4j or logging.getLogger().isEnabledFor(logging.DEBUG)


@contextlib.contextmanager
def quiet_py4j_while_failing() -> Iterator[None]:
    """While a job runs: a dying JVM makes Py4J log a traceback per call; :func:`jvm_failure` says it once."""
    noise = _Py4JConnectionNoise()
    # A filter sees only what is logged on its own logger, not what children propagate:
    # the root logger (connection noise), and py4j's callback server, which logs the
    # traceback of a failed foreachBatch (a streaming run's error, reported once by us).
    loggers = [logging.getLogger(name) for name in _PY4J_LOGGERS]
    for logger in loggers:
        logger.addFilter(noise)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(noise)


_PY4J_LOGGERS = ("", "py4j.clientserver", "py4j.java_gateway")
