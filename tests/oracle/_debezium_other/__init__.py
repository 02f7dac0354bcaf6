"""Generated cases for Debezium's other transforms (tests/oracle/test_debezium_other_transforms.py).

Each family is a pipeline case with one Debezium transform over change events in the layout of
tests/oracle/_debezium_cases.py (a ``*.Key`` struct key, a ``*.Envelope`` value, ops c/r/u/d/t,
tombstones, values that are no envelope, some read without schemas), with that transform's keys
and the edge values it reads; one module per transform. :data:`FAMILIES` names each family's plugin
and its cases.
"""

from __future__ import annotations

from typing import Callable

from tests.oracle._debezium_other._by_logical_table_router import ROUTER, router_cases
from tests.oracle._debezium_other._event_router import OUTBOX, outbox_cases
from tests.oracle._debezium_other._extract_changed_record_state import CHANGED, changed_cases
from tests.oracle._debezium_other._header_to_value import HEADER_TO_VALUE, header_to_value_cases
from tests.oracle._debezium_other._partition_routing import PARTITION, partition_cases
from tests.oracle._debezium_other._pipeline import ALIAS, pipeline
from tests.oracle._debezium_other._timezone_converter import TIMEZONE, timezone_cases

__all__ = ["ALIAS", "FAMILIES", "HEADER_TO_VALUE", "OUTBOX", "PARTITION", "TIMEZONE", "pipeline"]

#: plugin name -> a function returning its cases.
FAMILIES: dict[str, Callable[[], list[dict]]] = {
    CHANGED: changed_cases,
    TIMEZONE: timezone_cases,
    ROUTER: router_cases,
    HEADER_TO_VALUE: header_to_value_cases,
    PARTITION: partition_cases,
    OUTBOX: outbox_cases,
}
