"""Which topic names a sink may put into a path or a table name: Kafka's own rule, written once.

A record's topic is data: a Kafka topic name, or what a transform made of it
(RegexRouter, TimestampRouter, a guest's ``set_topic``).  A sink that turns it
into a place (``${topic}`` in a table sink's ``path`` or ``table``) asks
:func:`topic_name_problem` first, and a record whose topic fails it fails
alone at TASK_PUT, naming the topic.  The rule is Kafka's for topic names
(``org.apache.kafka.common.internals.Topic``): 1 to 249 of
``[a-zA-Z0-9._-]``, and not ``.`` or ``..``.  Such a name has no path
separator, no NUL, no ``..`` segment, is never absolute or empty, and fits
one file-name component (255 bytes); every topic Kafka can hold passes, so
no real topic is refused.  The Kafka sink refuses records with the same rule.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["MAX_TOPIC_LENGTH", "TOPIC_PATTERN", "TOPIC_RULE", "illegal_topics", "topic_name_problem"]

#: Kafka's rule for topic names, as a regular expression (``.`` and ``..`` excepted apart).
TOPIC_PATTERN = r"^[a-zA-Z0-9._-]{1,249}$"
MAX_TOPIC_LENGTH = 249
TOPIC_RULE = "1 to 249 ASCII letters, digits, '.', '_' or '-', and not '.' or '..'"

_DOTS = ("", ".", "..")


def topic_name_problem(name: str | None) -> str | None:
    """Why ``name`` may not name a place (no topic, or not a legal Kafka topic name), or ``None``."""
    if name is None or name == "":
        return "the record has no topic"
    if (
        name in _DOTS
        or len(name) > MAX_TOPIC_LENGTH
        or not all(c.isascii() and (c.isalnum() or c in "._-") for c in name)
    ):
        return f"topic {name!r} is not a legal Kafka topic name: {TOPIC_RULE}"
    return None


def illegal_topics(topics: pa.Array) -> list[str | None]:
    """The distinct values of ``topics`` (a string column) that :func:`topic_name_problem` refuses,
    null and empty included; a batch holds few distinct topics, so each is judged once."""
    names = pc.unique(topics)
    bad = pc.or_kleene(pc.invert(pc.match_substring_regex(names, TOPIC_PATTERN)), pc.is_in(names, pa.array(_DOTS[1:])))
    return pc.filter(names, pc.fill_null(bad, True)).to_pylist()
