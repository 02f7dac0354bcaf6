"""Converter cases for the parity harness: bytes to read and (schema, value) pairs to write, per converter.

Reading: bytes drawn as the oracle draws them (well formed, truncated, other
types, nulls); writing: (schema, value) pairs that fit and that do not.  The
JSON converter's compiled reader is driven in test_compiled_parity.py.
"""

from __future__ import annotations

import json

import orjson
from hypothesis import strategies as st

import converters
from smt.data import Schema
from tests.converters.strategies import JSON_VALUES, schema_and_value
from tests.oracle._cases import _converter_bytes
from tests.parity._drivers import converter_outcomes
from tests.parity._generators import SCALARS
from tests.parity._harness import distinct

#: A JSON Schema the payloads are validated against (``json.schema``): some drawn payloads fit it, most not.
_JSON_SCHEMA = orjson.dumps(
    {
        "anyOf": [
            {"type": ["integer", "string", "null"]},
            {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "array", "items": {"type": "string"}}},
            },
        ]
    }
).decode()

#: Registered name -> (the oracle's name for its bytes, settings to run it with).
CONVERTERS = {
    "json": (
        "JsonConverter",
        [
            {},
            {"schemas.enable": "false"},
            {"decimal.format": "NUMERIC"},
            {"json.schema": _JSON_SCHEMA},
            {"json.schema": _JSON_SCHEMA, "schemas.enable": "false"},
            {"schemas.enable": "false", "decimal.format": "NUMERIC"},
        ],
    ),
    "string": ("StringConverter", [{}, {"converter.encoding": "UTF-16"}, {"converter.encoding": "ISO-8859-1"}]),
    "short": ("ShortConverter", [{}]),
    "integer": ("IntegerConverter", [{}]),
    "long": ("LongConverter", [{}]),
    "float": ("FloatConverter", [{}]),
    "double": ("DoubleConverter", [{}]),
    "boolean": ("BooleanConverter", [{}]),
}
#: Converters with a batch path this harness does not drive, and where it is proven.
NOT_DRIVEN_CONVERTERS = {
    "avro": "needs a schema registry; tests/converters/avro checks to_connect_batch against to_connect_data",
}
_SCHEMAS = {
    "short": Schema.OPTIONAL_INT16_SCHEMA,
    "integer": Schema.OPTIONAL_INT32_SCHEMA,
    "long": Schema.OPTIONAL_INT64_SCHEMA,
    "float": Schema.OPTIONAL_FLOAT32_SCHEMA,
    "double": Schema.OPTIONAL_FLOAT64_SCHEMA,
    "boolean": Schema.OPTIONAL_BOOLEAN_SCHEMA,
    "string": Schema.OPTIONAL_STRING_SCHEMA,
}
ITEMS = 12
CASES = 12


class _Int(int):
    """An int of another class (as an IntEnum member is): the writer checks its range the long way."""


#: JSON envelopes whose payload may not fit their schema: every primitive and logical type, optional or not.
_ENVELOPE_TYPES = [
    {"type": t} for t in ("int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string", "bytes")
] + [
    {"type": "int64", "name": "org.apache.kafka.connect.data.Timestamp"},
    {"type": "int32", "name": "org.apache.kafka.connect.data.Date"},
    {"type": "int32", "name": "org.apache.kafka.connect.data.Time"},
    {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2"}},
    {"type": "array", "items": {"type": "int32"}},
    {"type": "map", "keys": {"type": "string"}, "values": {"type": "int64"}},
    {"type": "map", "keys": {"type": "int8"}, "values": {"type": "string"}},
    {"type": "map", "keys": {"type": "int8"}, "values": {"type": "string"}},
    {"type": "array", "items": {"type": "int16"}},
    {"type": "struct", "fields": [{"field": "a", "type": "int32"}]},
    # Named schemas label their errors by the last part of the name, dotted or not.
    {"type": "int32", "name": "Thing"},
    {"type": "string", "name": "a.b.Thing"},
    {"type": "struct", "name": "a.b.Thing", "fields": [{"field": "a", "type": "int8", "name": "c.d.Small"}]},
    # Parameters holding ',"payload":': the schema-prefix cache must look past it.
    {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2", "payload": "x"}},
    {"type": "int32", "parameters": {"a": "1", "payload": "2"}},
]
_PAYLOADS = st.one_of(
    SCALARS.filter(lambda v: not isinstance(v, float) or abs(v) < 1e300),
    st.sampled_from(["AQI=", "x", [1, "a"], {"a": 1}, {"a": "1"}, [], 1.5, 2**31, -(2**63) - 1, 2**64]),
    # Integers nested in arrays, maps (as pairs too) and structs, in and beyond the widths' bounds.
    st.lists(
        st.sampled_from([0, 5, 127, 128, -129, 32768, -32769, 2**31 + 1, -(2**31) - 2, 2**40]), max_size=2
    ).flatmap(lambda ints: st.sampled_from([ints, {"a": ints[0] if ints else "x"}, [[i, str(i)] for i in ints]])),
)
_MISFITS = st.tuples(st.sampled_from(_ENVELOPE_TYPES), st.booleans(), _PAYLOADS).map(
    # json, not orjson: it writes integers beyond 64 bits too.
    lambda t: json.dumps({"schema": {**t[0], "optional": t[1]}, "payload": t[2]}, separators=(",", ":")).encode()
)
#: Dotted schema names: two to four parts (an error labels its schema by the last part).
_SCHEMA_NAMES = st.lists(st.text(alphabet="abXY1_$", min_size=1, max_size=3), min_size=2, max_size=4, unique=True).map(
    ".".join
)
_NAMED_TYPES = {
    **{t: {"type": t} for t in ("int8", "int16", "int32", "int64", "float", "double", "boolean", "string", "bytes")},
    "array": {"type": "array", "items": {"type": "int32", "name": "p.q.Item"}},
    "map": {"type": "map", "keys": {"type": "string"}, "values": {"type": "int8", "name": "Small"}},
    "struct": {"type": "struct", "fields": [{"field": "a", "type": "int16", "name": "c.d.Small"}]},
}
#: Envelopes of a named schema of each kind with a payload of another JSON type (every reader's type
#: error, labelled by the name), some holding a named schema inside.
_NAMED_MISFITS = st.tuples(
    st.sampled_from(sorted(_NAMED_TYPES)),
    _SCHEMA_NAMES,
    st.sampled_from([True, "x", 1, 1.5, [1], ["x"], {"a": 1}, {"a": "1"}, {"a": [1]}]),
).map(
    lambda t: json.dumps(
        {"schema": {**_NAMED_TYPES[t[0]], "name": t[1], "optional": False}, "payload": t[2]}, separators=(",", ":")
    ).encode()
)
#: Well-formed JSON documents, some of which fit the JSON Schema and some not.
_WELL_FORMED = st.one_of(
    JSON_VALUES, st.sampled_from([1, "x", None, {"a": 1}, {"a": 1.5}, {"b": [1]}, {"b": ["x"]}, 1.5, [1], True])
).map(orjson.dumps)
#: Values the JSON converter cannot write as they are: non-finite floats, values of another type than their schema.
_UNWRITABLE = st.one_of(
    st.sampled_from([float("nan"), float("inf"), -float("inf")]).flatmap(
        lambda f: st.sampled_from([(None, f), (None, [1, f]), (None, {"a": f}), (Schema.FLOAT64_SCHEMA, f)])
    ),
    st.tuples(st.sampled_from([Schema.INT8_SCHEMA, Schema.INT32_SCHEMA, Schema.STRING_SCHEMA, Schema.BOOLEAN_SCHEMA]),
              SCALARS),
)  # fmt: skip


#: Values a schemaless JSON writer takes the careful way: NaN or infinity nested in maps, lists and tuples,
#: text and maps holding "null", tuples, and ints of another class at the edges of their widths.
_SCHEMALESS_EDGES = st.one_of(
    st.sampled_from([float("nan"), float("inf")]).flatmap(
        lambda f: st.sampled_from([{"a": {"b": f}}, [[1, f]], (1, f), {"a": (f,)}, [{"a": None}, (f,)]])
    ),
    st.sampled_from(["null", "annulled", {"a": None, "b": 1}, [None, "x", 1.5], (1, "null", None), (), {"a": (1, 2)}]),
)
#: NaN or an infinity at a drawn depth in lists, tuples and maps, beside finite items.
_NON_FINITE_NESTED = st.recursive(
    st.sampled_from([float("nan"), float("inf"), -float("inf")]),
    lambda inner: st.one_of(
        st.tuples(inner, st.integers(0, 9)).flatmap(lambda t: st.sampled_from([[t[0], t[1]], [t[1], t[0]]])),
        st.tuples(st.integers(0, 9), inner),
        st.tuples(inner, st.integers(0, 9)).map(lambda t: {"a": t[1], "b": t[0]}),
    ),
    max_leaves=3,
)
_INT_EDGES = st.sampled_from(
    [(Schema.INT8_SCHEMA, -128), (Schema.INT16_SCHEMA, -32768), (Schema.INT32_SCHEMA, -(2**31)),
     (Schema.INT64_SCHEMA, -(2**63)), (Schema.INT8_SCHEMA, 127), (Schema.INT8_SCHEMA, 128)]
).map(lambda sv: (sv[0], _Int(sv[1])))  # fmt: skip


_SCHEMA_HEAD = b'{"schema":' + orjson.dumps({"type": "double", "optional": False})
_PAYLOAD_MARK = b',"payload":'


def _long_numbers(count: int):
    """Messages of one double envelope whose payloads share hundreds of leading digits (zeros, then
    others) and differ in their last: the schema-prefix cache must take each payload from where the
    schema ends, and only from there."""
    head = _SCHEMA_HEAD + _PAYLOAD_MARK + b"1."
    shared = st.text(alphabet="123456789", min_size=60, max_size=60)
    tails = st.lists(st.text(alphabet="0123456789", min_size=1, max_size=3), min_size=count, max_size=count)
    # The zeros end before, and the shared digits run past, eleven times the schema's end: a cache that cut
    # its prefix there (a mutant's) would read a wrong number, not a broken one.
    cut = 11 * len(_SCHEMA_HEAD)
    return st.tuples(st.integers(cut - len(head) - 55, cut - len(head) - 5), shared, tails).map(
        lambda t: [head + b"0" * t[0] + t[1].encode() + tail.encode() + b"}" for tail in t[2]]
    )


def _read(name: str):
    if name == "json":
        return st.one_of(_converter_bytes("JsonConverter"), _MISFITS)
    return _converter_bytes(CONVERTERS[name][0])


def _concatenated(*parts):
    return st.tuples(*parts).map(lambda lists: [item for items in lists for item in items])


def _schemaless_batch():
    """ITEMS schemaless values (the writer's one-call batch path): a number of drawn width, then one value
    written with the text null (None, NaN, "null", a map holding None) at whichever offset that makes,
    then values without it."""
    plain = st.one_of(
        st.integers(-(10**6), 10**6), st.text(alphabet="abnu", max_size=4).filter(lambda t: "null" not in t)
    )
    nullish = st.one_of(_SCHEMALESS_EDGES, st.none())
    return st.tuples(st.integers(0, 10**8), nullish, st.lists(plain, min_size=ITEMS - 2, max_size=ITEMS - 2)).map(
        lambda t: [(None, v) for v in [t[0], t[1], *t[2]]]
    )


def _non_finite_batch():
    """ITEMS schemaless values for the writer's one-call batch path: numbers and text, beside NaN or an
    infinity at any depth in a list at the top (a tuple or a map at the top: _SCHEMALESS_EDGES) and in a
    value of any shape."""
    plain = st.one_of(st.integers(-(10**6), 10**6), st.text(alphabet="abnu", max_size=4))
    in_list = st.tuples(st.integers(0, 9), _NON_FINITE_NESTED).map(list)
    return st.tuples(
        in_list, _NON_FINITE_NESTED, st.lists(plain, min_size=ITEMS - 2, max_size=ITEMS - 2), st.integers(0, ITEMS)
    ).map(lambda t: [(None, v) for v in [*t[2][: t[3]], t[0], *t[2][t[3] :], t[1]]])


#: Documents nested one level deeper than Kafka's JsonConverter reads (which orjson, whose limit is 1024, parses),
#: bare and in an envelope, and one level less deep.
_DEEP = st.sampled_from([1001, 1000]).flatmap(
    lambda depth: st.sampled_from(
        [b"[" * depth + b"]" * depth, b'{"schema":null,"payload":' + b"[" * depth + b"]" * depth + b"}"]
    )
)


def _reads(name: str):
    """ITEMS messages; the JSON converter's each hold some of every kind (so that every case reaches each)."""
    if name != "json":
        return st.lists(_read(name), min_size=ITEMS, max_size=ITEMS)
    return _concatenated(
        st.lists(_converter_bytes("JsonConverter"), min_size=3, max_size=3),
        st.lists(_MISFITS, min_size=5, max_size=5),
        st.lists(_DEEP, min_size=1, max_size=1),
        _long_numbers(3),
    )


def _written(name: str):
    """ITEMS (schema, value) pairs; the JSON converter's hold some of every kind."""
    if name == "json":
        return _concatenated(
            st.lists(schema_and_value(max_depth=1), min_size=3, max_size=3),
            st.lists(JSON_VALUES.map(lambda v: (None, v)), min_size=2, max_size=2),
            st.lists(_UNWRITABLE, min_size=2, max_size=2),
            st.lists(_SCHEMALESS_EDGES.map(lambda v: (None, v)), min_size=3, max_size=3),
            st.lists(_INT_EDGES, min_size=2, max_size=2),
        ).flatmap(st.permutations)
    schema = st.sampled_from([None, _SCHEMAS[name], Schema.STRING_SCHEMA])
    return st.lists(st.tuples(schema, SCALARS), min_size=ITEMS, max_size=ITEMS)


def _written_with(name: str, props: dict):
    """What a converter with settings ``props`` writes: a schemaless JSON one (no envelope, no JSON Schema)
    takes batches all schemaless, the batch path it has for them (the JSON Schema settings, also
    schemaless, write the mixed ones)."""
    if name == "json" and props.get("schemas.enable") == "false" and "json.schema" not in props:
        return _schemaless_batch()
    return _written(name)


def _extra_json_case(props: dict):
    """A JSON case of well-formed shallow messages only (the schemaless readers parse such a batch in one
    go): envelopes of dotted named schemas with misfit payloads, and documents that do or do not fit the
    JSON Schema; and to write, for a schemaless writer, NaN and infinities nested in lists."""
    reads = _concatenated(
        st.lists(_NAMED_MISFITS, min_size=4, max_size=4), st.lists(_WELL_FORMED, min_size=ITEMS - 4, max_size=ITEMS - 4)
    ).flatmap(st.permutations)
    schemaless = props.get("schemas.enable") == "false" and "json.schema" not in props
    return st.tuples(st.just(props), st.booleans(), reads, _non_finite_batch() if schemaless else _written("json"))


#: The JSON converter's extra cases (_extra_json_case): one per this many.
EXTRA_JSON_SHARE = 4


def cases(name: str, count: int = CASES) -> list:
    """(settings, is_key, bytes to read, pairs to write) cases for converter ``name``; for the JSON converter a
    quarter as many more, of well-formed messages only (drawn apart, so that the others stay as they were)."""
    _, settings = CONVERTERS[name]
    drawn = distinct(
        st.sampled_from(settings).flatmap(
            lambda props: st.tuples(st.just(props), st.booleans(), _reads(name), _written_with(name, props))
        ),
        count,
    )
    if name == "json":
        drawn += distinct(st.sampled_from(settings).flatmap(_extra_json_case), max(1, count // EXTRA_JSON_SHARE))
    return drawn


def run_converter(name: str, drawn: list) -> tuple[list[str], int, list[str]]:
    """(differences between paths, how many items failed per item, the per-item outcomes as text)."""
    problems, failures, reference = [], 0, []
    for props, is_key, data, written in drawn:
        converter = converters.load(name, props, is_key=is_key)
        outcomes = converter_outcomes(converter, data, written)
        expected = outcomes.pop("record")
        failures += len(expected[0].failures) + len(expected[1].failures)
        reference.append(repr(expected))
        for path, outcome in outcomes.items():
            for direction, got, want in (("reading", outcome[0], expected[0]), ("writing", outcome[1], expected[1])):
                if got != want:
                    problems.append(f"{name} {props}: {direction}, path '{path}' gives {got!r}, per item {want!r}")
    return problems, failures, reference
