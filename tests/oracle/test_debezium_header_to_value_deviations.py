"""The two places where our HeaderToValue differs from Debezium's, stated exactly and checked against
Debezium's own class (docs/kafka-connect-compatibility.md, "Debezium's other transforms").

Headers carry no schema here, so a field's schema is inferred from the header's value:
- ``header-schema-inferred``: a header whose schema is optional (Kafka's HeaderFrom copies a
  nullable ``ts_ms``) becomes a field with Debezium's optional schema there and the inferred,
  required one here; the values are the same.
- ``null-header-fails``: a null header (a delete's ``after``) is a null field in Debezium's value;
  here the record fails, naming the header.
"""

from __future__ import annotations

import base64
import json

from hypothesis import strategies as st

from tests.oracle import _debezium_cases as dbz
from tests.oracle import _ours
from tests.oracle._debezium_other import ALIAS, HEADER_TO_VALUE, pipeline
from tests.oracle._generation import generate

_COPY = {
    "transforms": f"from,{ALIAS}",
    "transforms.from.type": "org.apache.kafka.connect.transforms.HeaderFrom$Value",
    "transforms.from.fields": "after,ts_ms",
    "transforms.from.headers": "h_after,h_ts",
    "transforms.from.operation": "copy",
}


def _case() -> dict:
    events = st.lists(dbz.table(), min_size=1, max_size=1).flatmap(
        lambda tables: st.lists(dbz.change_event(tables[0]), min_size=8, max_size=8).map(lambda e: (tables[0], e))
    )
    records = []
    for table, batch in generate(events, 4):
        for event in batch:
            if event["value"] is not None and event["value"]["op"] in ("c", "u", "d"):
                records.append(
                    {
                        "topic": f"srv.inv.{table['name']}",
                        "partition": 0,
                        "timestamp": None,
                        "key": dbz._b64({"schema": table["key_schema"], "payload": event["key"]}),
                        "value": dbz._b64({"schema": table["envelope_schema"], "payload": event["value"]}),
                        "headers": [],
                    }
                )
    keys = {"headers": "h_after,h_ts", "fields": "row,t", "operation": "move"}
    case = pipeline(HEADER_TO_VALUE, "io.debezium.transforms.HeaderToValue", keys, records, True)
    case["config"] = {**case["config"], **_COPY}
    return case


def _value(result: dict) -> dict:
    return json.loads(base64.b64decode(result["ok"]["value"]))


def test_header_to_value_differs_only_as_documented(debezium):
    case = _case()
    (theirs,) = debezium.run([case])
    ours = _ours.run(case)
    seen = {"header-schema-inferred": 0, "null-header-fails": 0}
    for kafka, mine in zip(theirs["records"], ours["records"]):
        value = _value(kafka)
        if value["payload"]["row"] is None:  # a delete: Debezium adds the null header as a null field
            assert mine["error"]["stage"] == "TRANSFORMATION"
            assert "header 'h_after'" in mine["error"]["message"]
            seen["null-header-fails"] += 1
            continue
        mine_value = _value(mine)
        t = next(f for f in value["schema"]["fields"] if f["field"] == "t")
        mine_t = next(f for f in mine_value["schema"]["fields"] if f["field"] == "t")
        assert (t["optional"], mine_t["optional"]) == (True, False)
        mine_t["optional"] = True  # the only difference: the schema's optional flag
        assert mine_value == value
        assert mine["ok"]["headers"] == kafka["ok"]["headers"] == []
        seen["header-schema-inferred"] += 1
    assert all(seen.values()), seen
