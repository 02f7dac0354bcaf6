"""Schema defaults in JsonConverter envelopes, read as Kafka reads them: every type's default (a
struct's too, which Kafka refuses), null defaults on optional and required schemas, in a struct's
fields and at the top.

Defaults of the wrong JSON type are left out: Kafka reads them, as it reads payload values of the
wrong type, with Jackson's coercions (``"x"`` as the int 0, a number as the string null), where we
refuse the record (see docs/kafka-connect-compatibility.md).
"""

from __future__ import annotations

import base64
import json

from hypothesis import strategies as st

from tests.oracle._generation import generate, scaled
from tests.oracle.test_oracle import assert_cases_match_kafka

JSON = "org.apache.kafka.connect.json.JsonConverter"

#: Schemas (without default and optional) and defaults of the right type for them.
_TYPED_DEFAULTS = [
    ({"type": "int32"}, 7),
    ({"type": "int64"}, -3),
    ({"type": "float64"}, 1.5),
    ({"type": "boolean"}, True),
    ({"type": "string"}, "x"),
    ({"type": "bytes"}, "AQI="),
    ({"type": "array", "items": {"type": "int32", "optional": False}}, [1, 2]),
    ({"type": "map", "keys": {"type": "string", "optional": False}, "values": {"type": "int64", "optional": True}},
     {"a": 1}),
    ({"type": "struct", "fields": [{"type": "int32", "optional": True, "field": "n"}]}, {"n": 1}),
    ({"type": "int32", "name": "org.apache.kafka.connect.data.Date"}, 3),
    ({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "2"}}, "AQI="),
]  # fmt: skip

#: (schema with optional and default, its payload value or null).
_FIELDS = st.sampled_from(_TYPED_DEFAULTS).flatmap(
    lambda typed: st.tuples(
        st.booleans(), st.sampled_from([typed[1], typed[1], None]), st.sampled_from([typed[1], None])
    ).map(lambda parts: ({**typed[0], "optional": parts[0], "default": parts[1]}, parts[2]))
)


def _envelope(fields: list[tuple[dict, object]], top: bool) -> bytes:
    """A struct of the fields, or (``top``) the first field's schema and value alone."""
    if top:
        schema, value = fields[0]
        text = {"schema": schema, "payload": value}
    else:
        schema = {"type": "struct", "optional": False,
                  "fields": [{**field, "field": f"f{i}"} for i, (field, _) in enumerate(fields)]}  # fmt: skip
        text = {"schema": schema, "payload": {f"f{i}": value for i, (_, value) in enumerate(fields)}}
    return json.dumps(text, separators=(",", ":")).encode()


_ENVELOPES = st.tuples(st.lists(_FIELDS, min_size=1, max_size=2), st.booleans())
CASES = st.lists(_ENVELOPES.map(lambda e: _envelope(*e)), min_size=8, max_size=8).map(
    lambda data: {
        "kind": "to_connect",
        "plugin": "JsonConverter",
        "converter": JSON,
        "config": {"schemas.enable": "true"},
        "header": False,
        "is_key": False,
        "topic": "t",
        "data": [base64.b64encode(d).decode() for d in data],
    }  # fmt: skip
)


def test_schema_defaults_are_read_as_kafka_reads_them(kafka_connect, deviation_counts):
    cases = generate(CASES, scaled(40))
    assert_cases_match_kafka(kafka_connect, deviation_counts, cases, minimum_cases=40)
