"""Debezium oracle cases for HeaderToValue: headers that Kafka's HeaderFrom$Value copies from the envelope, put back as fields."""

from __future__ import annotations

import base64
import json

from hypothesis import strategies as st

from tests.oracle import _debezium_cases as dbz
from tests.oracle._debezium_other._pipeline import ALIAS, paired, pipeline

HEADER_TO_VALUE = "HeaderToValue (Debezium)"
#: Kafka's HeaderFrom$Value first copies envelope fields into headers, with their schemas, as a
#: connector's own headers would have them; HeaderToValue then puts them back under new names.
_COPIED = {"h_op": "op", "h_source": "source", "h_after": "after"}
#: (headers, fields, operation): one header, several in another order, a field the value already
#: has, move and copy (in any case); headers no record has; configurations both refuse (counts that
#: differ, a blank element, a space in a name, an unknown operation).
_HEADER_TO_VALUE = [
    ("h_op", "operation", "copy"),
    ("h_op,h_source,h_after", "op_copy,src,row", "move"),
    ("h_after,h_op", "row,op2", "copy"),
    ("h_source", "source", "move"),
    ("h_op", "op", "copy"),
    ("h_after", "after", "MOVE"),
    ("h_op,h_op", "first,second", "copy"),
    ("nothing", "x", "move"),
    ("h_op,h_source", "a", "copy"),
    ("h_op,,h_source", "a,,b", "copy"),
    ("h op", "a", "copy"),
    ("h_op", "a", "keep"),
]


@st.composite
def _events_with_rows(draw, with_schemas: bool) -> list[dict]:
    """Creates, reads and updates (their ``after`` is a row), values that are no envelope, and some
    headers of their own that HeaderToValue does not name."""
    tables = draw(st.lists(dbz.table(), min_size=1, max_size=2))
    records = []
    while len(records) < dbz.RECORDS_PER_CASE:
        record = draw(dbz.record(draw(st.sampled_from(tables)), with_schemas, None))
        value = None if record["value"] is None else json.loads(base64.b64decode(record["value"]))
        payload = value.get("payload", value) if isinstance(value, dict) else None
        if isinstance(payload, dict) and payload.get("op") in ("d", "t"):
            continue  # a null after: a header of a null value (see the compatibility notes)
        if value is None:
            continue
        records.append(record)
    return records


def header_to_value_cases() -> list[dict]:
    """Each of :data:`_HEADER_TO_VALUE` four times over schema'd events, and once schemaless (a map
    value fails in both)."""
    type_ = "io.debezium.transforms.HeaderToValue"
    copied = {
        "transforms.from.type": "org.apache.kafka.connect.transforms.HeaderFrom$Value",
        "transforms.from.fields": ",".join(_COPIED.values()),
        "transforms.from.headers": ",".join(_COPIED),
        "transforms.from.operation": "copy",
    }
    cases = []
    for with_schemas, times in ((True, 4), (False, 1)):
        settings = [dict(zip(("headers", "fields", "operation"), row)) for row in _HEADER_TO_VALUE] * times
        for keys, records in paired(settings, _events_with_rows(with_schemas)):
            case = pipeline(HEADER_TO_VALUE, type_, keys, records, with_schemas)
            case["config"] = {**case["config"], **copied, "transforms": f"from,{ALIAS}"}
            cases.append(case)
    return cases
