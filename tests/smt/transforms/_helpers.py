"""Record factories and a configure helper shared by the transform tests."""

from __future__ import annotations

from typing import Any

from smt.plugin import PluginContext
from smt.record import Record

PREFIX = "transforms.t."


def configured(cls: type, **props: Any) -> Any:
    """An instance of ``cls`` configured from ``props`` (underscores in keys stay as given)."""
    transform = cls()
    transform.configure(props, PluginContext(alias="t", prefix=PREFIX))
    return transform


def conf(cls: type, props: dict[str, Any]) -> Any:
    """Like :func:`configured`, for keys that are not Python identifiers (``topic.field``)."""
    transform = cls()
    transform.configure(props, PluginContext(alias="t", prefix=PREFIX))
    return transform


def make_record(
    value: Any = None,
    *,
    key: Any = None,
    value_schema: Any = None,
    key_schema: Any = None,
    topic: str = "test",
    partition: int | None = 0,
    offset: int | None = None,
    timestamp: int | None = None,
    headers: tuple = (),
) -> Record:
    return Record(
        topic=topic,
        partition=partition,
        offset=offset,
        timestamp=timestamp,
        key=key,
        value=value,
        key_schema=key_schema,
        value_schema=value_schema,
        headers=headers,
    )


class RaisingErrors:
    """An ErrorSink that records failures instead of raising."""

    def __init__(self) -> None:
        self.failures: list[tuple[int, BaseException]] = []

    def fail(self, row: int, exc: BaseException) -> None:
        self.failures.append((row, exc))
