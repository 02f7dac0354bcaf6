"""Debezium's other transforms as the oracle: generated change events, ours vs Debezium's own classes.

The same JVM as tests/oracle/test_debezium_oracle.py (the ``debezium`` fixture) runs each
family of tests/oracle/_debezium_other/ through Debezium 3.6.1.Final's class and ours:
JsonConverter in, the transform, JsonConverter out; value, key, headers, topic and partition are
compared, and so are failures. These families accept no deviation: every record must agree.
"""

from __future__ import annotations

import base64
import functools
import json

import pytest

from tests.oracle import _ours
from tests.oracle._compare import SAME, Tally, run_cases
from tests.oracle._debezium_other import FAMILIES, PARTITION
from tests.oracle._equivalence import outcomes_agree


@functools.cache
def family_cases(plugin: str) -> list[dict]:
    """The family's cases, generated once per session (the mutant test judges the same ones)."""
    return FAMILIES[plugin]()


@pytest.mark.parametrize("plugin", FAMILIES)
def test_the_transform_matches_debezium(debezium, plugin):
    cases = family_cases(plugin)
    tally = Tally()
    run_cases(debezium, cases, tally, _ours.run)
    print("\n" + tally.report())
    shown = "\n".join(_shown(d) for d in tally.unexplained[:3])
    assert set(tally.verdicts[plugin]) == {SAME}, f"{tally.verdicts[plugin]}, first differences:\n{shown}"
    assert tally.cases(plugin) == sum(len(case["records"]) for case in cases)


def _decoded(result: dict) -> dict:
    """A record's result with its key and value as the JSON they hold."""
    if "ok" not in result:
        return result
    ok = dict(result["ok"])
    for part in ("key", "value"):
        ok[part] = None if ok[part] is None else json.loads(base64.b64decode(ok[part]))
        if isinstance(ok[part], dict):
            ok[part] = ok[part].get("payload", ok[part])
    return {"ok": ok}


def _shown(detail: dict) -> str:
    keys = {k: v for k, v in detail["case"]["config"].items() if k.startswith("transforms.")}
    record = _decoded({"ok": detail["item"]})["ok"]
    return (
        f"keys {keys}\n  record {record['topic']} {record['value']}\n"
        f"  Debezium {_decoded(detail['kafka'])}\n  ours     {_decoded(detail['ours'])}"
    )


def test_partition_routing_fails_on_sink_records_in_debezium_and_routes_here(debezium):
    """Debezium's PartitionRouting casts each change event to SourceRecord, so in a sink connector's
    chain it fails every one ("Unprocessable message"); ours routes them as in a source connector's
    (the family above runs Debezium's on SourceRecords). Tombstones and other values pass in both."""
    case = next(
        {k: v for k, v in c.items() if k != "source_records"}
        for c in family_cases(PARTITION)
        if c["config"]["value.converter.schemas.enable"] == "true"
        and c["config"]["transforms.t.partition.topic.num"] == "7"
    )
    (theirs,) = debezium.run([case])
    ours = _ours.run(case)
    failed = 0
    for kafka, mine in zip(theirs["records"], ours["records"]):
        if "error" in kafka:
            assert kafka["error"]["class"] == "io.debezium.DebeziumException"
            assert kafka["error"]["message"].startswith("Unprocessable message")
            assert "ok" in mine
            failed += 1
        else:
            assert outcomes_agree(case, kafka, mine)
    assert failed > 0
