"""Wide generated cases for the parity harness: names, topics, patterns and values drawn, not picked from a list.

Each case draws a small pool of names first (field names, topic names), then
both the stage's configuration and its records from that pool, so a
configuration names fields and topics the records have, and some they lack.
Names mix letters of both cases, digits, ``-``, ``_``, ``.``, ``$`` and
non-ASCII letters; patterns are built from the pool's topics (whole, prefix,
suffix, groups, classes, alternations, optional parts), so a change of
matching rule (full match or search), of boundary or of sign changes results.
"""

from __future__ import annotations

import re

from hypothesis import strategies as st

from smt.record import Record

_LETTERS = "abcxyzABZ019-_.$é`"
NAMES = st.text(alphabet=_LETTERS, min_size=1, max_size=5)
#: Values: integers around every boundary a transform may test (0, ±1, int widths), floats, text, booleans, None.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([127, 128, -128, -129, 2**31 - 1, 2**31, -(2**31) - 1, 2**63 - 1, -(2**63)]),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    # Floats at the edges of the integer widths a Cast may clamp or wrap to.
    st.sampled_from([127.5, 128.0, -128.5, -129.0, 32767.9, 2.0**31, -(2.0**31) - 1, 2.0**63, -(2.0**63), 0.5, -0.5]),
    st.text(alphabet=_LETTERS + " ", max_size=6),
)


#: Names holding a backtick before a dot: in a V2 path they need the backslash escape.
ESCAPED_NAMES = st.tuples(NAMES, NAMES).map("`.".join)


def pools():
    """(field names, topic names): the names one case draws everything from."""
    return st.tuples(
        st.lists(st.one_of(NAMES, NAMES, ESCAPED_NAMES), min_size=2, max_size=5, unique=True),
        st.lists(st.one_of(NAMES, st.just("")), min_size=2, max_size=4, unique=True),
    )


#: Record timestamps: none, near the epoch, and anywhere over a wide range.
TIMESTAMPS = st.one_of(st.none(), st.integers(-(2**41), 2**42), st.sampled_from([0, -1, 1]))


def maps(fields: list[str], scalars=SCALARS):
    inner = st.dictionaries(st.sampled_from(fields), scalars, max_size=3)
    return st.dictionaries(st.sampled_from(fields), st.one_of(scalars, scalars, inner), max_size=5)


def records(fields: list[str], topics: list[str], headers: list[str], scalars=SCALARS, timestamps=TIMESTAMPS):
    """Records over the pools; ``scalars`` and ``timestamps`` let a stage's cases weigh the values it
    treats specially (tests/parity/_stage_cases.py ``VALUES``, ``TIMESTAMPS``)."""
    part = st.one_of(st.none(), maps(fields, scalars), maps(fields, scalars), maps(fields, scalars), scalars)
    header = st.lists(st.tuples(st.sampled_from(headers), SCALARS), max_size=3).map(tuple)
    return st.builds(
        Record,
        topic=st.sampled_from(topics),
        partition=st.one_of(st.none(), st.integers(0, 5)),
        offset=st.one_of(st.none(), st.integers(0, 1000)),
        timestamp=timestamps,
        key=part,
        value=part,
        headers=header,
    )


def batches(fields: list[str], topics: list[str], headers: list[str], scalars=SCALARS, timestamps=TIMESTAMPS):
    return st.lists(records(fields, topics, headers, scalars, timestamps), min_size=1, max_size=8)


_DOT, _BACKTICK = ".", "`"


def _v2_step(name: str, quoted: bool) -> str:
    """``name`` as one step of a V2 field path: bare where it can be, else in backticks, a backtick
    followed by a dot inside escaped with a backslash (Kafka's FieldSyntaxVersion V2)."""
    if not quoted and _DOT not in name and not name.startswith(_BACKTICK):
        return name
    return _BACKTICK + name.replace(_BACKTICK + _DOT, "\\" + _BACKTICK + _DOT) + _BACKTICK


def v2_paths(fields: list[str]):
    """V2 field paths over ``fields``: one to three steps, some quoted in backticks (needed or not)."""
    step = st.tuples(st.sampled_from(fields), st.booleans()).map(lambda t: _v2_step(*t))
    return st.lists(step, min_size=1, max_size=3).map(_DOT.join)


def _java_literal(text: str) -> str:
    """``text`` as a Java regex matching it literally (Python's escape is also Java's for these letters)."""
    return re.escape(text)


def patterns(topics: list[str]):
    """Java regular expressions built from ``topics``: some match one in full, some a part, some none."""
    topic = st.sampled_from(topics)
    cut = st.tuples(topic, st.integers(0, 5)).map(lambda t: (t[0][: t[1]], t[0][t[1] :]))
    return st.one_of(
        topic.map(_java_literal),
        cut.map(lambda p: _java_literal(p[0]) + "(.*)"),
        cut.map(lambda p: "(.*)" + _java_literal(p[1])),
        cut.map(lambda p: "(" + _java_literal(p[0]) + ")(.+)"),
        cut.map(lambda p: _java_literal(p[0])),  # a prefix: matches only where the whole topic is it
        st.tuples(topic, topic).map(lambda t: f"{_java_literal(t[0])}|{_java_literal(t[1])}"),
        topic.map(lambda t: f"{_java_literal(t)}?"),
        st.sampled_from(["[a-z]+", "[A-Z].*", ".*[0-9]", "(.)(.*)", ".+", ".*", "x*", "(a|b)(.*)"]),
    )


def replacements():
    """RegexRouter replacements: literal text, group references, both, and the empty string."""
    text = st.text(alphabet="abXY-_.é", max_size=4)
    group = st.sampled_from(["$0", "$1"])
    return st.one_of(text, group, st.tuples(text, group, text).map("".join))
