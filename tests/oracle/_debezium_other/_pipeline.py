"""What every family of Debezium's other transforms builds its cases with: the pipeline case around
one transform, listed configurations paired with generated events, change-event batches."""

from __future__ import annotations

import itertools

from hypothesis import strategies as st

from tests.oracle import _debezium_cases as dbz
from tests.oracle._generation import generate, scaled

ALIAS = "t"


def pipeline(plugin: str, type_: str, settings: dict, records: list[dict], with_schemas: bool) -> dict:
    """A pipeline case: JsonConverter (with or without schemas) around one transform ``type_``, nulls read as nulls."""
    return dbz.pipeline_case(plugin, type_, settings, records, with_schemas, alias=ALIAS)


def paired(settings: list[dict], events) -> list[tuple[dict, list[dict]]]:
    """Each of ``settings`` (in turn, again for a scaled run) with its own batch drawn from ``events``:
    the configurations are listed, so that each is sure to run, and the events are generated."""
    return list(zip(itertools.cycle(settings), generate(events, scaled(len(settings)))))


def change_events(draw, tables: list[dict], with_schemas: bool, count: int = dbz.RECORDS_PER_CASE) -> list[dict]:
    return [draw(dbz.record(draw(st.sampled_from(tables)), with_schemas, None)) for _ in range(count)]


def schemas_or_not(draw) -> bool:
    return draw(st.integers(0, 7)) > 0
