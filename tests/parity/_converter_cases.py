"""Converter cases for the parity harness: bytes to read and (schema, value) pairs to write, per converter.

Reading: bytes drawn as the oracle draws them (well formed, truncated, other
types, nulls); writing: (schema, value) pairs that fit and that do not.  The
JSON converter's compiled reader is driven in test_compiled_parity.py.
"""

from __future__ import annotations

import orjson
from hypothesis import strategies as st

import converters
from smt.data import Schema
from tests.converters.strategies import JSON_VALUES, schema_and_value
from tests.oracle._cases import _converter_bytes
from tests.oracle._generation import generate
from tests.parity._drivers import converter_outcomes
from tests.parity._generators import SCALARS

#: Registered name -> (the oracle's name for its bytes, settings to run it with).
CONVERTERS = {
    "json": ("JsonConverter", [{}, {"schemas.enable": "false"}, {"decimal.format": "NUMERIC"}]),
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
    {"type": "struct", "fields": [{"field": "a", "type": "int32"}]},
]
_PAYLOADS = st.one_of(
    SCALARS.filter(lambda v: not isinstance(v, float) or abs(v) < 1e300),
    st.sampled_from(["AQI=", "x", [1, "a"], {"a": 1}, {"a": "1"}, [], 1.5, 2**31, -(2**63) - 1, 2**64]),
)
_MISFITS = st.tuples(st.sampled_from(_ENVELOPE_TYPES), st.booleans(), _PAYLOADS).map(
    lambda t: orjson.dumps({"schema": {**t[0], "optional": t[1]}, "payload": t[2]})
)
#: Values the JSON converter cannot write as they are: non-finite floats, values of another type than their schema.
_UNWRITABLE = st.one_of(
    st.sampled_from([float("nan"), float("inf"), -float("inf")]).flatmap(
        lambda f: st.sampled_from([(None, f), (None, [1, f]), (None, {"a": f}), (Schema.FLOAT64_SCHEMA, f)])
    ),
    st.tuples(st.sampled_from([Schema.INT8_SCHEMA, Schema.INT32_SCHEMA, Schema.STRING_SCHEMA, Schema.BOOLEAN_SCHEMA]),
              SCALARS),
)  # fmt: skip


def _read(name: str):
    if name == "json":
        return st.one_of(_converter_bytes("JsonConverter"), _MISFITS)
    return _converter_bytes(CONVERTERS[name][0])


def _written(name: str):
    if name == "json":
        return st.one_of(schema_and_value(max_depth=1), JSON_VALUES.map(lambda v: (None, v)), _UNWRITABLE)
    schema = st.sampled_from([None, _SCHEMAS[name], Schema.STRING_SCHEMA])
    return st.tuples(schema, SCALARS)


def cases(name: str, count: int = CASES) -> list:
    """(settings, is_key, bytes to read, pairs to write) cases for converter ``name``."""
    _, settings = CONVERTERS[name]
    return generate(
        st.tuples(
            st.sampled_from(settings),
            st.booleans(),
            st.lists(_read(name), min_size=ITEMS, max_size=ITEMS),
            st.lists(_written(name), min_size=ITEMS, max_size=ITEMS),
        ),
        count,
    )


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
