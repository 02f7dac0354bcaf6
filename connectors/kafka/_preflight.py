"""Checks made before Spark touches Kafka: is the cluster reachable, do the topics exist?

Without them an unreachable broker makes Spark wait out the client's default
timeouts (a minute or more) and then fail with a stack trace, and a missing
output topic fails a write half-way.  The checks use Kafka's own Java
``Admin`` client inside the Spark driver (the connector's jars are on its
classpath), with exactly the ``kafka.*`` settings the user gave, so security
settings apply to them as they do to Spark's reads and writes: wrong
credentials or an untrusted certificate fail here, before anything is read or
written, with an error saying that authentication failed.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Iterable, Mapping

from smt.errors import SmtError, chain_text
from smt.sessions import is_connect

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import SparkSession

__all__ = [
    "KafkaAuthenticationError", "KafkaUnavailableError", "KafkaWriteError", "MissingTopicError",
    "list_topics", "require_topics", "kafka_error_summary", "kafka_job_failure",
]  # fmt: skip


log = logging.getLogger(__name__)


class KafkaUnavailableError(SmtError):
    """The Kafka cluster could not be reached; the message names the servers."""


class KafkaAuthenticationError(KafkaUnavailableError):
    """The cluster refused the client: wrong SASL credentials, or a TLS handshake that failed."""


# Kafka's AuthenticationException and its subclasses (SaslAuthenticationException,
# SslAuthenticationException, ...), as named in a py4j error's text.
_AUTHENTICATION_FAILURE = re.compile(r"org\.apache\.kafka\.common\.errors\.\w*AuthenticationException\b")


class MissingTopicError(SmtError):
    """A topic the pipeline needs does not exist; the message names it and the cluster."""


class KafkaWriteError(SmtError):
    """A write to Kafka failed; the message names the cluster (or the transactional id) and the Kafka error."""


def list_topics(spark: "SparkSession", kafka_params: Mapping[str, str], timeout_ms: int, where: str) -> set[str] | None:
    """The topic names the cluster shows to this client.

    ``kafka_params`` are Kafka client settings (``bootstrap.servers``, security
    settings), ``where`` the config key naming the servers in errors.  Returns
    ``None`` (after a warning saying so) when the session has no JVM to check
    with (Spark Connect).
    Raises :class:`KafkaUnavailableError` when the cluster does not answer
    within ``timeout_ms``, :class:`KafkaAuthenticationError` (a subclass) when
    it refuses the client's credentials or the TLS handshake fails.
    """
    if is_connect(spark):
        log.warning(
            "Spark Connect: the Kafka checks for %s (cluster reachable, topics exist) need the JVM and are "
            "skipped; an unreachable cluster or a missing topic shows as Spark's own error",
            where,
        )
        return None
    jvm = spark._jvm
    servers = kafka_params.get("bootstrap.servers", "")
    properties = jvm.java.util.Properties()
    for name, value in kafka_params.items():
        properties.setProperty(name, str(value))
    try:
        admin = jvm.org.apache.kafka.clients.admin.Admin.create(properties)
    except Exception as exc:
        raise KafkaUnavailableError(
            f"{where}={servers}: cannot create a Kafka client: {kafka_error_summary(exc)}"
        ) from exc
    try:
        future = admin.listTopics().names()
        names = future.get(timeout_ms, jvm.java.util.concurrent.TimeUnit.MILLISECONDS)
        return {str(name) for name in names}
    except Exception as exc:
        summary = kafka_error_summary(exc)
        if _AUTHENTICATION_FAILURE.search(str(exc)):
            raise KafkaAuthenticationError(
                f"{where}={servers}: authentication failed; check the security settings "
                f"(security.protocol, sasl.*, ssl.*) given with it: {summary}"
            ) from exc
        cause = "" if summary == "TimeoutException" else f"; {summary}"
        raise KafkaUnavailableError(
            f"{where}={servers}: cannot reach the Kafka cluster within {timeout_ms} ms "
            f"(is a broker listening there, with these security settings?{cause})"
        ) from exc
    finally:
        admin.close(jvm.java.time.Duration.ZERO)  # nothing worth waiting for


def require_topics(wanted: Iterable[str], existing: set[str], servers: str, key: str) -> None:
    """Raise :class:`MissingTopicError` naming every topic of ``wanted`` not in ``existing``."""
    missing = sorted(set(wanted) - existing)
    if not missing:
        return
    listed = ", ".join(repr(t) for t in missing)
    noun = "topic" if len(missing) == 1 else "topics"
    verb = "does" if len(missing) == 1 else "do"
    raise MissingTopicError(
        f"{key}: {noun} {listed} {verb} not exist on the Kafka cluster at {servers} "
        "(or this client may not describe it)"
    )


#: PySpark's wrapping of an exception our Python code raised on an executor; its traceback follows.
#: Where a Python worker's traceback starts: as PySpark tells it (a job run from Python), or as the JVM does
#: (a streaming query's failure); it ends where the Java stack starts.
_PYTHON_WORKER = re.compile(
    r"An exception was thrown from the Python worker|org\.apache\.spark\.api\.python\.PythonException: Traceback"
)
_JAVA_STACK = re.compile(r"^\s+at [\w$.]+\(", re.MULTILINE)
_PYTHON_EXCEPTION = re.compile(r"^([\w.]+(?:Error|Exception)): (.*)$", re.MULTILINE)
#: Stack frames and messages of Spark's Kafka *source* (a consumer): a job that read and wrote failed reading.
_READ_SIDE = (
    "KafkaDataConsumer",
    "KafkaOffsetReader",
    "KafkaConsumer.poll",
    "Cannot fetch record for offset",
    "before the position for partition",
)
_KAFKA_EXCEPTION = re.compile(r"(org\.apache\.kafka\.[\w.]+(?:Exception|Error))\b: ([^\n]*)")
_JAVA_EXCEPTION = re.compile(r"((?:java|org)\.[\w.]+(?:Exception|Error))\b(?:: ([^\n]*))?")


def kafka_error_summary(exc: BaseException) -> str:
    """One line naming the Kafka (or Java) exception behind a py4j or Spark error.

    The outermost Kafka exception usually says what failed (it names the
    topic), the innermost why; both are kept when they differ.  A job that
    failed on a record, or reading, says so first.
    """
    failed, summary = _what_failed(exc)
    return summary if failed == _WRITING else f"{failed}: {summary}"


def kafka_job_failure(exc: BaseException, servers: str) -> str:
    """The message for a Spark job that wrote to the Kafka cluster at ``servers`` and failed.

    Only a failed write is called one (its records sent before the failure
    stay in Kafka); a job stopped by a record, or by its Kafka source, says that.
    """
    failed, summary = _what_failed(exc)
    if failed == _WRITING:
        return (
            f"writing to the Kafka cluster at {servers} failed; records written before the failure stay in "
            f"Kafka: {summary}"
        )
    return f"{failed}: {summary}"


_WRITING = "writing failed"
_RECORD = "a record failed before it was written (not a Kafka problem)"
_READING = "reading the source topics failed, not writing"


def _what_failed(exc: BaseException) -> tuple[str, str]:
    """(what failed: _WRITING, _RECORD or _READING; the exception that says why)."""
    text = chain_text(exc)
    python = _PYTHON_WORKER.search(text)
    if python is not None:
        # The job failed in our own Python code (a record that failed with errors.tolerance=none), not in Kafka.
        traceback = text[python.end() :]
        java_stack = _JAVA_STACK.search(traceback)
        raised = _PYTHON_EXCEPTION.findall(traceback[: java_stack.start()] if java_stack else traceback)
        if raised:
            name, message = raised[-1]
            # The sink's own Python writer (librdkafka) failed to write: a Kafka problem after all.
            failed = _WRITING if name.rsplit(".", 1)[-1] == KafkaWriteError.__name__ else _RECORD
            return failed, _exception_line(name, message)
    summary = _java_summary(text)
    return (_READING if any(marker in text for marker in _READ_SIDE) else _WRITING), summary


def _java_summary(text: str) -> str:
    for pattern in (_KAFKA_EXCEPTION, _JAVA_EXCEPTION):
        found = [_exception_line(name, message) for name, message in pattern.findall(text)]
        if found:
            outer, inner = found[0], found[-1]
            return outer if outer == inner else f"{outer} (caused by {inner})"
    first_line = text.strip().splitlines()[0] if text.strip() else "unknown error"
    return first_line[:500]


def _exception_line(name: str, message: str) -> str:
    short = name.rsplit(".", 1)[-1]
    return f"{short}: {message.strip()}" if message and message.strip() else short
