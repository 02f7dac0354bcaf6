"""Configurations for every built-in stage with more than one path, drawn from a case's names.

``TRANSFORMS`` / ``PREDICATES`` map a registered name to a function of the
case's pools (field names, topic names, header names) returning a strategy of
its configuration.  ``test_paths.py`` checks every built-in with a path
besides the per-record one is here.  ``VALUES`` and ``TIMESTAMPS`` weigh a
stage's records toward the values it treats specially (Cast's clamping of
floats, TimestampConverter's long and nanosecond limits, TimestampRouter's
wide and narrow batches).  Field-naming settings are drawn in both syntaxes;
``field.syntax.version=V2`` paths are dotted, with backtick-quoted steps.
"""

from __future__ import annotations

import decimal

from hypothesis import strategies as st

from tests.parity._generators import NAMES, SCALARS, patterns, replacements, v2_paths

HEADER_NAMES = ["h", "H", "h.1", "é"]
_CAST_TYPES = st.sampled_from(["int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string"])


def _one(fields):
    return st.sampled_from(fields)


def _some(fields, most: int = 3):
    return st.lists(st.sampled_from(fields), min_size=1, max_size=most).map(
        lambda names: ",".join(dict.fromkeys(names))
    )


def _nested(fields):
    return st.tuples(_one(fields), _one(fields)).map(".".join)


def _syntax(fields, one_field):
    """(field setting, syntax setting): V1 names from ``one_field``, or V2 paths (half the draws)."""
    return st.one_of(
        one_field(fields).map(lambda f: (f, {})),
        v2_paths(fields).map(lambda f: (f, {"field.syntax.version": "V2"})),
    )


def _v2_list(fields, key: str):
    """``{key: a,b, "field.syntax.version": "V2"}``: one to three V2 paths."""
    return st.lists(v2_paths(fields), min_size=1, max_size=3).map(
        lambda paths: {key: ",".join(dict.fromkeys(paths)), "field.syntax.version": "V2"}
    )


def _optional(key, strategy):
    return st.one_of(st.just({}), strategy.map(lambda v: {key: v}))


def _with(*parts):
    return st.tuples(*parts).map(lambda dicts: {k: v for d in dicts for k, v in d.items()})


def _insert_field(fields, topics):
    name = st.one_of(_one(fields), NAMES)
    v2 = st.sampled_from([{}, {"field.syntax.version": "V2"}])
    return _with(
        _optional("topic.field", name),
        _optional("partition.field", name),
        _optional("offset.field", name),
        _optional("timestamp.field", name),
        _optional("static.field", name),
        _optional("static.value", NAMES),
        v2,
    ).filter(bool)


def _mask_field(fields, topics):
    return _with(
        st.one_of(
            _with(
                st.one_of(_some(fields), _nested(fields)).map(lambda f: {"fields": f}),
                st.sampled_from([{}, {"field.syntax.version": "V2"}]),
            ),
            _v2_list(fields, "fields"),
        ),
        _optional("replacement", st.sampled_from(["****", "0", "9", "x", "-1", "1.5"])),
    )


def _replace_field(fields, topics):
    renames = st.lists(st.tuples(_one(fields), st.one_of(_one(fields), NAMES)), max_size=2).map(
        lambda ps: list(dict(ps).items())
    )
    v1 = _with(
        _optional("exclude", _some(fields)),
        _optional("include", _some(fields)),
        _optional("renames", renames.filter(bool).map(lambda ps: ",".join(f"{a}:{b}" for a, b in ps))),
    )
    # V2: nested paths to drop, keep or rename (a rename gives the last step a new name).
    v2_renames = st.lists(st.tuples(v2_paths(fields), st.one_of(_one(fields), NAMES)), min_size=1, max_size=2)
    v2 = _with(
        st.just({"field.syntax.version": "V2"}),
        st.one_of(st.just({}), _v2_list(fields, "exclude")),
        st.one_of(st.just({}), _v2_list(fields, "include")),
        _optional("renames", v2_renames.map(lambda ps: ",".join(f"{a}:{b}" for a, b in dict(ps).items()))),
    )
    return st.one_of(v1, v2)


TRANSFORMS = {
    "InsertField": _insert_field,
    "MaskField": _mask_field,
    "ReplaceField": _replace_field,
    "ExtractField": lambda fields, topics: st.one_of(
        _with(
            st.one_of(_one(fields), _nested(fields)).map(lambda f: {"field": f}),
            st.sampled_from([{}, {"field.syntax.version": "V2"}]),
        ),
        v2_paths(fields).map(lambda f: {"field": f, "field.syntax.version": "V2"}),
    ),
    "HoistField": lambda fields, topics: _one(fields).map(lambda f: {"field": f}),
    "Flatten": lambda fields, topics: _optional("delimiter", st.sampled_from([".", "_", "", "$$"])),
    "ValueToKey": lambda fields, topics: st.one_of(
        _some(fields).map(lambda f: {"fields": f}), _v2_list(fields, "fields")
    ),
    "DropHeaders": lambda fields, topics: st.lists(st.sampled_from(HEADER_NAMES), min_size=1, max_size=3).map(
        lambda h: {"headers": ",".join(h)}
    ),
    "InsertHeader": lambda fields, topics: st.fixed_dictionaries(
        {
            "header": st.sampled_from(HEADER_NAMES),
            "value.literal": st.sampled_from(["42", "-1", "true", "x", "1.5", "[1,2]", '{"a":1}', ""]),
        }
    ),
    "Filter": lambda fields, topics: st.just({}),
    "RegexRouter": lambda fields, topics: st.fixed_dictionaries(
        {"regex": patterns(topics), "replacement": replacements()}
    ),
    "TimestampRouter": lambda fields, topics: _with(
        _optional("topic.format", st.sampled_from(["${topic}_${timestamp}", "x-${timestamp}", "${topic}", "a"])),
        # Millisecond formats put a wide batch's rows in far-apart buckets; the last three are refused.
        st.sampled_from(["yyyy-MM", "yyyyMMdd", "HH:mm:ss.SSS", "SSS", "ss.SSS", "D", "yyyy'", "q", "{"]).map(
            lambda f: {"timestamp.format": f}
        ),
    ),
    # Stages with the per-record path only: their batch path is the default loop over apply, run all the same.
    "Cast": lambda fields, topics: st.one_of(
        st.lists(st.tuples(_one(fields), _CAST_TYPES), min_size=1, max_size=3).map(
            lambda pairs: {"spec": ",".join(f"{f}:{t}" for f, t in dict(pairs).items())}
        ),
        st.lists(st.tuples(v2_paths(fields), _CAST_TYPES), min_size=1, max_size=2).map(
            lambda pairs: {"spec": ",".join(f"{f}:{t}" for f, t in dict(pairs).items()), "field.syntax.version": "V2"}
        ),
        _CAST_TYPES.map(lambda spec: {"spec": spec}),
    ),
    "TimestampConverter": lambda fields, topics: _with(
        st.one_of(st.just({}), _syntax(fields, _one).map(lambda fs: {"field": fs[0], **fs[1]})),
        st.sampled_from(["string", "unix", "unix", "Date", "Time", "Timestamp"]).map(lambda t: {"target.type": t}),
        st.sampled_from([{}, {"format": "yyyy-MM-dd"}, {"format": "yyyy-MM-dd'T'HH:mm:ss.SSS"}]),
        st.sampled_from(["seconds", "milliseconds", "microseconds", "nanoseconds", "nanoseconds"]).map(
            lambda p: {"unix.precision": p}
        ),
    ),
    "SetSchemaMetadata": lambda fields, topics: _with(
        _optional("schema.name", NAMES), _optional("schema.version", st.integers(-1, 9).map(str))
    ),
    "HeaderFrom": lambda fields, topics: _with(
        st.one_of(
            st.lists(_one(fields), min_size=1, max_size=2).map(
                lambda f: {"fields": ",".join(f), "headers": ",".join(HEADER_NAMES[: len(f)])}
            ),
            _v2_list(fields, "fields").map(
                lambda c: {**c, "headers": ",".join(HEADER_NAMES[: len(c["fields"].split(","))])}
            ),
        ),
        st.sampled_from([{"operation": "copy"}, {"operation": "move"}]),
    ),
}

_CAST_TEXT = st.one_of(
    st.sampled_from([127, 128, -128, -129, 32767, 32768, -32769, 2**31 - 1, 2**31, -(2**31) - 1, 2**63]),
    st.integers(-(2**40), 2**40),
    st.floats(-1e6, 1e6),
).map(str)


def _v2_list(fields: list[str], key: str):
    """``key`` set to one or two V2 paths (nested ones reach into the records' inner maps)."""
    return st.lists(v2_paths(fields), min_size=1, max_size=2, unique=True).map(
        lambda paths: {key: ",".join(paths), "field.syntax.version": "V2"}
    )


#: Family -> the scalars its records hold (instead of the generators' SCALARS).
VALUES = {
    # Floats beyond every integer width (clamped to int32 or int64, then wrapped), and infinities; integers
    # beyond the narrow widths (wrapped); floats float32 rounds, and floats whose whole part is 1 or -1.
    "Cast": st.one_of(
        st.sampled_from([3e9, -3e9, 2.0**31, -(2.0**31) - 1, 1e19, -1e19, 2.0**64, 2.5, -2.5, 40000.5]),
        st.sampled_from([300, -129, 70_000, -40_000, 2**40, -(2**40), 0.1, 1 / 3, 1.5, -1.5, -1.0, 0.5]),
        st.floats(-1e20, 1e20),
        st.sampled_from([float("inf"), -float("inf")]),
        # Text a Cast parses (weighed up: a field must also be cast to a number to meet it): integers at and
        # beyond each width's bounds, either sign, and decimals.
        *[_CAST_TEXT] * 3,
        SCALARS,
    ),
    # Unix times whose scaling saturates a Java long, and times that need nanoseconds' full factor.
    "TimestampConverter": st.one_of(
        SCALARS,
        st.sampled_from([2**62, -(2**62), 2**63 - 1, -(2**63), 9_223_372_036_854_776, 10**15 + 999_999]),
        st.integers(-(2**63), 2**63 - 1),
    ),
    # A value of every type MaskField masks (each has its own masked value), weighed up: a masked field must
    # also hold it.
    "MaskField": st.one_of(
        SCALARS,
        st.floats(allow_nan=False, width=64),
        st.sampled_from([1.5, -0.0, -2.5, 7, -1, True, False, "s", "", decimal.Decimal("1.5"), [1], {"a": 1}]),
    ),
}
#: Family -> the record timestamps of its cases: TimestampRouter's batches span a few buckets or billions.
TIMESTAMPS = {
    "TimestampRouter": st.one_of(
        st.integers(-(2**41), 2**42), st.integers(-(2**41), 2**42), st.none(), st.sampled_from([0, 1, 86_400_000])
    ),
}

PREDICATES = {
    "TopicNameMatches": lambda fields, topics: patterns(topics).map(lambda p: {"pattern": p}),
    "HasHeaderKey": lambda fields, topics: st.sampled_from(HEADER_NAMES).map(lambda h: {"name": h}),
    "RecordIsTombstone": lambda fields, topics: st.just({}),
}


def family(name: str) -> str:
    return name.split("$")[0]
