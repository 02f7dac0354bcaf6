"""Debezium's own ExtractNewRecordState as the oracle: generated change events, ours vs Debezium's.

One JVM runs Debezium 3.6.1.Final's ``io.debezium.transforms.ExtractNewRecordState`` on Kafka
Connect's classes (tests/oracle/_jvm.py, DEBEZIUM_BUNDLE), through the same pipeline harness
as the Kafka oracle: JsonConverter in, the transform, JsonConverter out, so value, key,
headers and topic are compared as bytes (JSON as the document it is). The cases
(tests/oracle/_debezium_cases.py) cover every delete.tombstone.handling.mode, add.fields and
add.headers with their prefixes and renames, route.by.field, replace.null.with.default, the
drop.fields.* keys and the obsolete keys, over ops c/r/u/d/t and tombstones, schema'd and
schemaless. A difference must be a documented deviation.
"""

from __future__ import annotations

import collections

from tests.oracle import _debezium_cases, _ours
from tests.oracle._compare import Tally, run_cases
from tests.oracle._generation import generate, scaled

#: Generated configurations for each delete.tombstone.handling.mode (and for the key left out)
#: and focus (_debezium_cases.FOCUSES); each has RECORDS_PER_CASE change events.
CASES_EACH = 6
MODES = (None, *_debezium_cases.MODES)


def debezium_cases() -> list[dict]:
    return [
        case
        for mode in MODES
        for focus in _debezium_cases.FOCUSES
        for case in generate(_debezium_cases.case(mode, focus), scaled(CASES_EACH))
    ]


def outcomes(kafka: dict) -> collections.Counter:
    """What Debezium did with each record of one case: kept, dropped, failed, tombstone written."""
    found: collections.Counter = collections.Counter()
    for item in kafka.get("records", []):
        if "ok" in item:
            found["tombstone" if item["ok"]["value"] is None else "written"] += 1
        else:
            found[next(iter(item))] += 1
    return found


def test_extract_new_record_state_matches_debezium(debezium, deviation_counts):
    cases = debezium_cases()
    tally = Tally()
    answered = run_cases(debezium, cases, tally, _ours.run)
    print("\n" + tally.report())
    deviation_counts.update(tally.deviations())
    shown = "\n".join(repr(d) for d in tally.unexplained[:5])
    assert not tally.unexplained, f"{len(tally.unexplained)} unexplained differences, first ones:\n{shown}"
    plugin = _debezium_cases.PLUGIN
    each = _debezium_cases.RECORDS_PER_CASE
    assert tally.cases(plugin) >= len(MODES) * len(_debezium_cases.FOCUSES) * scaled(CASES_EACH) * each
    # The cases reach every outcome: records written, tombstones written, records dropped, records failed.
    seen = sum((outcomes(kafka) for kafka, _, _ in answered), collections.Counter())
    print(f"Debezium's outcomes: {dict(seen)}")
    assert {"written", "tombstone", "dropped", "error"} <= set(seen), seen
