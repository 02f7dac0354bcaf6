"""Kafka Connect's error handling: tolerance, retries, logging, dead letters.

Configured with Kafka Connect's keys (``errors.tolerance``,
``errors.retry.timeout``, ``errors.retry.delay.max.ms``, ``errors.log.*``,
``errors.deadletterqueue.*``).  With tolerance ``none`` the first failure
stops the pipeline with a :class:`~smt.errors.StageError` naming the stage,
the plugin class and the record's topic/partition/offset; with ``all`` the
record is skipped, logged if asked, and sent to the dead-letter queue if one
is configured.

The dead-letter record is the ORIGINAL input record (key/value bytes,
headers, timestamp as read), optionally with ``__connect.errors.*`` context
headers.  Unlike Kafka Connect (sinks only) this applies to every stage:
TASK_POLL (a record the source could not read), the converters, the
transforms, and TASK_PUT (a record the sink says it cannot write, see
``smt.connector_roles.RecordChecks.record_errors``; Kafka Connect's ErrantRecordReporter).
"""

from __future__ import annotations

import dataclasses
import logging
import time
import traceback
from typing import Any, Callable, Mapping, TypeVar

from smt.config import ConfigDef, ConfigType, Importance, at_least, one_of
from smt.config_providers import SecretMask
from smt.errors import DataError, RetriableError, SmtError, StageError

__all__ = [
    "ErrorPolicy",
    "ERRORS_CONFIG",
    "FailedRecord",
    "context_headers",
    "log_undeliverable",
    "masked_error",
    "with_retries",
]

log = logging.getLogger("smt.errors")

ERRORS_CONFIG = (
    ConfigDef()
    .define(
        "errors.tolerance",
        ConfigType.STRING,
        "none",
        one_of("none", "all"),
        Importance.MEDIUM,
        "Behaviour for tolerating errors: 'none' stops the pipeline at the first failed record; "
        "'all' skips failed records (logging and dead-lettering them as configured).",
    )
    .define(
        "errors.retry.timeout",
        ConfigType.LONG,
        0,
        at_least(-1),
        Importance.MEDIUM,
        "Maximum duration in milliseconds a failed operation is retried when the failure is "
        "retriable. 0 means no retries, -1 infinite retries. Only the key and value converters "
        "reading a record retry (a schema registry unreachable or answering 5xx); other stages do not.",
    )
    .define(
        "errors.retry.delay.max.ms",
        ConfigType.LONG,
        60000,
        at_least(1),
        Importance.MEDIUM,
        "Maximum delay in milliseconds between consecutive retries. The delay starts at 300 ms "
        "and doubles on each retry, capped at this value.",
    )
    .define(
        "errors.log.enable",
        ConfigType.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "If true, write each error and the details of the failed operation to the log.",
    )
    .define(
        "errors.log.include.messages",
        ConfigType.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Whether to include the record (topic, partition, offset, key and value) in the log.",
    )
    .define(
        "errors.deadletterqueue.topic.name",
        ConfigType.STRING,
        "",
        None,
        Importance.MEDIUM,
        "Kafka topic of the dead-letter queue, written with the Kafka sink's kafka.* settings, each "
        "overridden by an errors.deadletterqueue.kafka.* key of the same name; when "
        "errors.deadletterqueue.kafka.bootstrap.servers is given (another cluster), with those keys "
        "alone. Empty: no Kafka dead-letter queue.",
    )
    .define(
        "errors.deadletterqueue.path",
        ConfigType.PATH,
        "",
        None,
        Importance.MEDIUM,
        "Directory of a file dead-letter queue (JSON lines of whole records), the embedded "
        "default's alternative to a topic. Empty: no file dead-letter queue.",
    )
    .define(
        "errors.deadletterqueue.context.headers.enable",
        ConfigType.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "If true, add __connect.errors.* headers with the error context to dead-letter records.",
    )
    .define_prefix(
        "errors.deadletterqueue.kafka.",
        "Kafka producer settings of the dead-letter topic (default: the Kafka sink's kafka.* settings).",
    )
)

_INITIAL_BACKOFF_MS = 300


@dataclasses.dataclass(frozen=True)
class ErrorPolicy:
    """The parsed ``errors.*`` settings."""

    tolerance: str = "none"
    retry_timeout_ms: int = 0
    retry_delay_max_ms: int = 60000
    log_enable: bool = False
    log_include_messages: bool = False
    dlq_topic: str = ""
    dlq_path: str = ""
    context_headers: bool = False
    connector_name: str = "smt-pipeline"
    #: Hides the values config providers gave in every message about a failed record.
    mask: SecretMask = SecretMask()

    @classmethod
    def from_properties(cls, props: Mapping[str, Any], connector_name: str = "smt-pipeline") -> "ErrorPolicy":
        values = ERRORS_CONFIG.parse({k: v for k, v in props.items() if k.startswith("errors.")})
        return cls(
            tolerance=values["errors.tolerance"],
            retry_timeout_ms=values["errors.retry.timeout"],
            retry_delay_max_ms=values["errors.retry.delay.max.ms"],
            log_enable=values["errors.log.enable"],
            log_include_messages=values["errors.log.include.messages"],
            dlq_topic=values["errors.deadletterqueue.topic.name"],
            dlq_path=values["errors.deadletterqueue.path"],
            context_headers=values["errors.deadletterqueue.context.headers.enable"],
            connector_name=connector_name,
        )

    @property
    def tolerates_all(self) -> bool:
        return self.tolerance == "all"

    @property
    def dead_letters(self) -> bool:
        return bool(self.dlq_topic or self.dlq_path)


@dataclasses.dataclass
class FailedRecord:
    """A record that failed: which input row, and the error."""

    origin: int
    error: StageError


T = TypeVar("T")


def with_retries(
    policy: ErrorPolicy,
    operation: Callable[[], T],
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """Run ``operation``, retrying on :class:`RetriableError` as the policy allows.

    Backoff starts at 300 ms and doubles, capped at ``errors.retry.delay.max.ms``
    and at the time left before ``errors.retry.timeout``; -1 retries forever.
    The last error is raised when time runs out.
    """
    deadline = None if policy.retry_timeout_ms < 0 else clock() + policy.retry_timeout_ms / 1000
    delay_ms = _INITIAL_BACKOFF_MS
    while True:
        try:
            return operation()
        except RetriableError:
            now = clock()
            if deadline is not None and now >= deadline:
                raise
            wait = min(delay_ms, policy.retry_delay_max_ms) / 1000
            if deadline is not None:
                wait = min(wait, deadline - now)
            sleep(wait)
            delay_ms *= 2


def context_headers(error: StageError, record: Any, policy: ErrorPolicy, task_id: int = 0) -> list[tuple[str, bytes]]:
    """Kafka Connect's ``__connect.errors.*`` headers for a dead-letter record."""
    cause = error.cause
    stack = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))
    values = [
        ("__connect.errors.topic", getattr(record, "topic", None)),
        ("__connect.errors.partition", getattr(record, "partition", None)),
        ("__connect.errors.offset", getattr(record, "offset", None)),
        ("__connect.errors.connector.name", policy.connector_name),
        ("__connect.errors.task.id", task_id),
        ("__connect.errors.stage", error.stage.value),
        ("__connect.errors.class.name", error.plugin_class),
        ("__connect.errors.exception.class.name", f"{type(cause).__module__}.{type(cause).__qualname__}"),
        ("__connect.errors.exception.message", str(cause)),
        ("__connect.errors.exception.stacktrace", stack),
    ]
    mask = policy.mask
    return [(name, mask(str(value)).encode("utf-8")) for name, value in values if value is not None]


def log_failure(policy: ErrorPolicy, error: StageError, record: Any) -> None:
    """Log one failed record the way ``errors.log.*`` asks."""
    if not policy.log_enable:
        return
    message = f"Error encountered in {error.stage.value} with {error.plugin_class}: {error.cause}"
    if policy.log_include_messages and record is not None:
        message += (
            f" (record topic={getattr(record, 'topic', None)!r} partition={getattr(record, 'partition', None)}"
            f" offset={getattr(record, 'offset', None)} key={getattr(record, 'key', None)!r}"
            f" value={getattr(record, 'value', None)!r})"
        )
    log.error(policy.mask(message))


def log_undeliverable(policy: ErrorPolicy, error: StageError, reason: BaseException) -> None:
    """Log a failed record the dead-letter queue could not take (always: it leaves no other trace)."""
    log.error(
        policy.mask(f"Could not write a failed record to the dead-letter queue, so it is dropped ({reason}). {error}")
    )


def masked_error(policy: ErrorPolicy, error: StageError) -> StageError:
    """``error`` as it may leave the executor (Spark logs it): a message holding a secret is masked."""
    text = str(error.cause)
    shown = policy.mask(text)
    if shown == text:
        return error
    cause = DataError(shown) if isinstance(error.cause, DataError) else SmtError(shown)
    return StageError(error.stage, error.plugin_class, cause, record=error.record, alias=error.alias)
