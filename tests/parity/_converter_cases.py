"""Converter cases for the parity harness: bytes to read and (schema, value) pairs to write, per converter.

Reading: bytes drawn as the oracle draws them (well formed, truncated, other
types, nulls); writing: (schema, value) pairs that fit and that do not.  The
JSON converter's compiled reader is driven in test_compiled_parity.py.
"""

from __future__ import annotations

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


def _written(name: str):
    if name == "json":
        return st.one_of(schema_and_value(max_depth=1), JSON_VALUES.map(lambda v: (None, v)))
    schema = st.sampled_from([None, _SCHEMAS[name], Schema.STRING_SCHEMA])
    return st.tuples(schema, SCALARS)


def cases(name: str, count: int = CASES) -> list:
    """(settings, is_key, bytes to read, pairs to write) cases for converter ``name``."""
    kafka_name, settings = CONVERTERS[name]
    return generate(
        st.tuples(
            st.sampled_from(settings),
            st.booleans(),
            st.lists(_converter_bytes(kafka_name), min_size=ITEMS, max_size=ITEMS),
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
