"""Debezium oracle cases for ExtractChangedRecordState: updates that keep some values and change others, and every other event."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.oracle import _debezium_cases as dbz
from tests.oracle._debezium_other._pipeline import change_events, pipeline, schemas_or_not
from tests.oracle._generation import generate, scaled

CHANGED = "ExtractChangedRecordState (Debezium)"
#: -0.0 and 0.0 would differ for Java's Double.equals, but JsonConverter reads both as 0.0 (through
#: BigDecimal), so both sides find them equal.
_SIGNED_ZERO = st.sampled_from([0.0, -0.0])


@st.composite
def _update(draw, table: dict) -> dict:
    """An update whose ``after`` keeps some of ``before``'s values: a record as dbz.record writes one."""
    before = draw(dbz.row(table))
    after = {
        name: value if draw(st.integers(0, 2)) > 0 else draw(dbz.row(table))[name] for name, value in before.items()
    }
    if "price" in before and draw(st.booleans()):
        before["price"], after["price"] = draw(_SIGNED_ZERO), draw(_SIGNED_ZERO)
    event = draw(dbz.change_event(table))
    if event["value"] is None:
        return None
    return {**event["value"], "before": before, "after": after, "op": "u"}


@st.composite
def changed_case(draw) -> dict:
    settings = {
        "header.changed.name": draw(st.sampled_from([None, "changed", "", " ", "same"])),
        "header.unchanged.name": draw(st.sampled_from([None, "unchanged", "same"])),
    }
    with_schemas = schemas_or_not(draw)
    tables = draw(st.lists(dbz.table(), min_size=1, max_size=2))
    records = change_events(draw, tables, with_schemas)
    for index, record in enumerate(records):
        if with_schemas and draw(st.booleans()):
            table = draw(st.sampled_from(tables))
            value = draw(_update(table))
            if value is not None:
                records[index] = {**record, "topic": f"srv.inv.{table['name']}", "value": _envelope(table, value)}
    return pipeline(CHANGED, "io.debezium.transforms.ExtractChangedRecordState", settings, records, with_schemas)


def _envelope(table: dict, value: dict) -> str:
    return dbz._b64({"schema": table["envelope_schema"], "payload": value})


def changed_cases() -> list[dict]:
    return generate(changed_case(), scaled(24))
