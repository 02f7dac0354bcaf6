"""Generated cases for Debezium's other transforms (tests/oracle/test_debezium_other_transforms.py).

Each family is a pipeline case with one Debezium transform over change events in the layout of
tests/oracle/_debezium_cases.py (a ``*.Key`` struct key, a ``*.Envelope`` value, ops c/r/u/d/t,
tombstones, values that are no envelope, some read without schemas), with that transform's keys
and the edge values it reads. :data:`FAMILIES` names each family's plugin and its cases.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.oracle import _debezium_cases as dbz
from tests.oracle._cases import JSON

ALIAS = "t"


def pipeline(plugin: str, type_: str, settings: dict, records: list[dict], with_schemas: bool) -> dict:
    """A pipeline case: JsonConverter (with or without schemas) around one transform ``type_``."""
    enabled = "true" if with_schemas else "false"
    config = {
        "key.converter": JSON,
        "key.converter.schemas.enable": enabled,
        "value.converter": JSON,
        "value.converter.schemas.enable": enabled,
        # Nulls reach the transforms as nulls, not as their fields' defaults.
        "value.converter.replace.null.with.default": "false",
        "transforms": ALIAS,
        f"transforms.{ALIAS}.type": type_,
        **{f"transforms.{ALIAS}.{k}": v for k, v in settings.items() if v is not None},
    }
    return {
        "kind": "pipeline",
        "plugin": plugin,
        "config": config,
        "records": [{**r, "offset": offset} for offset, r in enumerate(records)],
    }


def _records(draw, tables: list[dict], with_schemas: bool, count: int = dbz.RECORDS_PER_CASE) -> list[dict]:
    return [draw(dbz.record(draw(st.sampled_from(tables)), with_schemas, None)) for _ in range(count)]


def _with_schemas(draw) -> bool:
    return draw(st.integers(0, 7)) > 0


# --- ExtractChangedRecordState ---------------------------------------------------------------

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
    with_schemas = _with_schemas(draw)
    tables = draw(st.lists(dbz.table(), min_size=1, max_size=2))
    records = _records(draw, tables, with_schemas)
    for index, record in enumerate(records):
        if with_schemas and draw(st.booleans()):
            table = draw(st.sampled_from(tables))
            value = draw(_update(table))
            if value is not None:
                records[index] = {**record, "topic": f"srv.inv.{table['name']}", "value": _envelope(table, value)}
    return pipeline(CHANGED, "io.debezium.transforms.ExtractChangedRecordState", settings, records, with_schemas)


def _envelope(table: dict, value: dict) -> str:
    return dbz._b64({"schema": table["envelope_schema"], "payload": value})


#: plugin name -> (cases strategy, how many cases).
FAMILIES: dict[str, tuple[Any, int]] = {
    CHANGED: (changed_case(), 24),
}
