"""Exception types, and the stages an error can happen in.

Errors are split by phase, as in Kafka Connect: :class:`ConfigError` at build
time (names the key, the value and the reason), :class:`DataError` at apply
time (names the operation), and :class:`StageError` when a record fails in the
pipeline (names the stage, the plugin and the record's coordinates).
"""

from __future__ import annotations

import enum
from typing import Any, Iterable

__all__ = [
    "SmtError",
    "ConfigError",
    "ConfigProblem",
    "DataError",
    "RetriableError",
    "PluginError",
    "Stage",
    "StageError",
    "chain_text",
]


class SmtError(Exception):
    """Base class of every error this project raises on purpose."""


class ConfigProblem:
    """One problem with one configuration key."""

    __slots__ = ("key", "value", "reason")

    def __init__(self, key: str, reason: str, value: Any = None) -> None:
        self.key = key
        self.reason = reason
        self.value = value

    def __str__(self) -> str:
        return f"{self.key}: {self.reason}"

    def __repr__(self) -> str:
        return f"ConfigProblem({self.key!r}, {self.reason!r}, value={self.value!r})"


class ConfigError(SmtError):
    """One or more configuration problems; ``problems`` lists them all.

    The message is one line per problem, each ``<full key>: <reason>``.
    ``notices`` holds the warnings found alongside (unknown or deprecated keys,
    see :mod:`smt.config_review`), when the raiser reviewed the keys.
    """

    notices: "tuple | list" = ()

    def __init__(self, problems: ConfigProblem | str | Iterable[ConfigProblem], key: str | None = None) -> None:
        if isinstance(problems, str):
            problems = [ConfigProblem(key or "", problems)] if key else [ConfigProblem("", problems)]
        elif isinstance(problems, ConfigProblem):
            problems = [problems]
        self.problems: list[ConfigProblem] = list(problems)
        super().__init__("\n".join(_problem_line(p) for p in self.problems))

    @classmethod
    def for_key(cls, key: str, reason: str, value: Any = None) -> "ConfigError":
        return cls([ConfigProblem(key, reason, value)])


def _problem_line(problem: ConfigProblem) -> str:
    return str(problem) if problem.key else problem.reason


class DataError(SmtError):
    """A record's data cannot be processed (Kafka Connect's ``DataException``)."""


class RetriableError(SmtError):
    """A transient failure; the operation may succeed if retried."""


class PluginError(SmtError):
    """A plugin could not be loaded or registered; the message names the plugin."""


class Stage(str, enum.Enum):
    """Where in the pipeline an error happened (Kafka Connect's stage names)."""

    KEY_CONVERTER = "KEY_CONVERTER"
    VALUE_CONVERTER = "VALUE_CONVERTER"
    HEADER_CONVERTER = "HEADER_CONVERTER"
    TRANSFORMATION = "TRANSFORMATION"
    TASK_PUT = "TASK_PUT"
    TASK_POLL = "TASK_POLL"
    KAFKA_PRODUCE = "KAFKA_PRODUCE"
    KAFKA_CONSUME = "KAFKA_CONSUME"


class StageError(SmtError):
    """A record failed in a stage of the pipeline.

    ``cause`` is the original exception, ``plugin_class`` the class that was
    running (transform, converter, connector), ``record`` the record as it was
    when it failed, when known.
    """

    def __init__(
        self,
        stage: Stage,
        plugin_class: str,
        cause: BaseException,
        *,
        record: Any = None,
        alias: str | None = None,
        location: str | None = None,
    ) -> None:
        self.stage = stage
        self.plugin_class = plugin_class
        self.cause = cause
        self.record = record
        self.alias = alias
        #: Where the source read the record (``line 3 of /data/in.txt``), when it can tell.
        self.location = location
        super().__init__(self._message())

    def located(self, location: str) -> "StageError":
        """The same failure, naming where the source read the record instead of its partition and offset."""
        return StageError(
            self.stage, self.plugin_class, self.cause, record=self.record, alias=self.alias, location=location
        )

    def _message(self) -> str:
        where = f"{self.stage.value} stage"
        who = f"{self.plugin_class}" + (f" (alias '{self.alias}')" if self.alias else "")
        coords = ""
        if self.record is not None:
            topic = getattr(self.record, "topic", None)
            partition = getattr(self.record, "partition", None)
            offset = getattr(self.record, "offset", None)
            coords = f" on record topic={topic!r} partition={partition} offset={offset}"
        if self.location:
            coords = f" on the record read from {self.location}"
        return f"Error in {where} with {who}{coords}: {type(self.cause).__name__}: {self.cause}"


def chain_text(exc: BaseException) -> str:
    """The messages of ``exc`` and its causes, with the Java stack trace (and its causes) PySpark captured.

    A Py4J error's ``str`` fails when the JVM is gone: its class name stands in.
    """
    texts = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        try:
            texts.append(str(current))
        except Exception:  # noqa: BLE001 - Py4JJavaError.__str__ calls into the dead JVM
            texts.append(type(current).__name__)
        stack = getattr(current, "_stackTrace", None)  # pyspark's CapturedException: the JVM's, causes included
        if isinstance(stack, str):
            texts.append(stack)
        current = current.__cause__ or current.__context__
    return "\n".join(texts)
