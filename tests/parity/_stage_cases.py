"""Configurations for every built-in stage with more than one path, drawn from a case's names.

``TRANSFORMS`` / ``PREDICATES`` map a registered name to a function of the
case's pools (field names, topic names, header names) returning a strategy of
its configuration.  ``test_paths.py`` checks every built-in with a path
besides the per-record one is here.
"""

from __future__ import annotations

from hypothesis import strategies as st

from tests.parity._generators import NAMES, patterns, replacements

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
        st.one_of(_some(fields), _nested(fields).map(lambda f: f)).map(lambda f: {"fields": f}),
        _optional("replacement", st.sampled_from(["****", "0", "9", "x", "-1", "1.5"])),
        st.sampled_from([{}, {}, {"field.syntax.version": "V2"}]),
    )


def _replace_field(fields, topics):
    renames = st.lists(st.tuples(_one(fields), st.one_of(_one(fields), NAMES)), max_size=2).map(
        lambda ps: list(dict(ps).items())
    )
    return _with(
        _optional("exclude", _some(fields)),
        _optional("include", _some(fields)),
        _optional("renames", renames.filter(bool).map(lambda ps: ",".join(f"{a}:{b}" for a, b in ps))),
    )


TRANSFORMS = {
    "InsertField": _insert_field,
    "MaskField": _mask_field,
    "ReplaceField": _replace_field,
    "ExtractField": lambda fields, topics: _with(
        st.one_of(_one(fields), _nested(fields)).map(lambda f: {"field": f}),
        st.sampled_from([{}, {"field.syntax.version": "V2"}]),
    ),
    "HoistField": lambda fields, topics: _one(fields).map(lambda f: {"field": f}),
    "Flatten": lambda fields, topics: _optional("delimiter", st.sampled_from([".", "_", "", "$$"])),
    "ValueToKey": lambda fields, topics: _some(fields).map(lambda f: {"fields": f}),
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
        _optional("timestamp.format", st.sampled_from(["yyyy-MM", "yyyyMMdd", "HH:mm:ss.SSS", "D", "yyyy'", "q"])),
    ),
    # Stages with the per-record path only: their batch path is the default loop over apply, run all the same.
    "Cast": lambda fields, topics: st.one_of(
        st.lists(st.tuples(_one(fields), _CAST_TYPES), min_size=1, max_size=3).map(
            lambda pairs: ",".join(f"{f}:{t}" for f, t in dict(pairs).items())
        ),
        _CAST_TYPES,
    ).map(lambda spec: {"spec": spec}),
    "TimestampConverter": lambda fields, topics: _with(
        _optional("field", _one(fields)),
        st.sampled_from(["string", "unix", "Date", "Time", "Timestamp"]).map(lambda t: {"target.type": t}),
        st.sampled_from([{}, {"format": "yyyy-MM-dd"}, {"format": "yyyy-MM-dd'T'HH:mm:ss.SSS"}]),
        _optional("unix.precision", st.sampled_from(["seconds", "milliseconds", "microseconds", "nanoseconds"])),
    ),
    "SetSchemaMetadata": lambda fields, topics: _with(
        _optional("schema.name", NAMES), _optional("schema.version", st.integers(-1, 9).map(str))
    ),
    "HeaderFrom": lambda fields, topics: _with(
        st.lists(_one(fields), min_size=1, max_size=2).map(
            lambda f: {"fields": ",".join(f), "headers": ",".join(HEADER_NAMES[: len(f)])}
        ),
        st.sampled_from([{"operation": "copy"}, {"operation": "move"}]),
    ),
}

PREDICATES = {
    "TopicNameMatches": lambda fields, topics: patterns(topics).map(lambda p: {"pattern": p}),
    "HasHeaderKey": lambda fields, topics: st.sampled_from(HEADER_NAMES).map(lambda h: {"name": h}),
    "RecordIsTombstone": lambda fields, topics: st.just({}),
}


def family(name: str) -> str:
    return name.split("$")[0]
