"""Saved copies of the generated WAT, for a sweep of guest shapes: a generator change shows as a diff.

``snapshots/`` holds the Kafka Connect adapter for each shape of :data:`SHAPES`, its dispatch
shim and the Redpanda adapter.  ``test_wat_snapshots.py`` fails on any difference, showing it as a
unified diff; after a deliberate change, regenerate them and review the diff with the change::

    python -m tests.host_functions.wat_snapshots --write
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

from host_functions.kafka_connect._adapter_shim import shim_wat
from host_functions.kafka_connect.adapter import adapter_wat
from host_functions.kafka_connect.layout import AdapterShape
from host_functions.redpanda import adapter as redpanda_adapter

SNAPSHOTS = Path(__file__).with_name("snapshots")
REGENERATE = "python -m tests.host_functions.wat_snapshots --write"

_ALL_INPUTS = frozenset({"key", "value", "topic", "headers", "timestamp", "partition", "offset"})
_NOTHING = dict.fromkeys(
    ("modifies_key", "modifies_value", "modifies_topic", "modifies_headers", "modifies_timestamp"), False
)

#: name -> the guest shape its adapter is generated for.
SHAPES: dict[str, AdapterShape] = {
    # reads nothing, changes nothing, returns nothing (an i32 entry, no dealloc)
    "reads_nothing": AdapterShape(entry_returns_i64=False, has_dealloc=False, **_NOTHING),
    # to_upper: the value in and out, staged up front
    "value_in_value_out": AdapterShape(
        entry_returns_i64=True, has_dealloc=True, **{**_NOTHING, "modifies_value": True}, staged=frozenset({"value"})
    ),
    # a getter of a column not staged asks the host for it (Status.NEEDS_INPUT)
    "key_on_demand": AdapterShape(entry_returns_i64=True, has_dealloc=True, **{**_NOTHING, "modifies_key": True}),
    # routes and stamps: topic, headers and timestamp changed, records emitted
    "routes_and_emits": AdapterShape(
        entry_returns_i64=True,
        has_dealloc=True,
        **{**_NOTHING, "modifies_topic": True, "modifies_headers": True, "modifies_timestamp": True},
        staged=frozenset({"topic", "headers", "timestamp"}),
        emits=True,
    ),
    # the record as JSON both ways
    "record_json": AdapterShape(
        entry_returns_i64=True,
        has_dealloc=True,
        **{**_NOTHING, "modifies_key": True, "modifies_value": True, "modifies_topic": True, "modifies_headers": True},
        staged=_ALL_INPUTS,
        get_record=True,
        set_record=True,
    ),
    # everything at once
    "everything": AdapterShape(
        entry_returns_i64=True,
        has_dealloc=True,
        **dict.fromkeys(_NOTHING, True),
        staged=_ALL_INPUTS,
        get_record=True,
        set_record=True,
        emits=True,
    ),
}


def generated() -> dict[str, Callable[[], str]]:
    """File name -> a function generating its text now."""
    files: dict[str, Callable[[], str]] = {
        f"adapter_{name}.wat": (lambda shape=shape: adapter_wat(shape)) for name, shape in SHAPES.items()
    }
    files["shim.wat"] = shim_wat
    files["redpanda_adapter.wat"] = redpanda_adapter.adapter_wat
    return files


def write() -> list[str]:
    """Regenerate every snapshot (and remove stale ones); the names written."""
    SNAPSHOTS.mkdir(exist_ok=True)
    files = generated()
    for stale in set(p.name for p in SNAPSHOTS.glob("*.wat")) - set(files):
        (SNAPSHOTS / stale).unlink()
    for name, generate in files.items():
        text = generate()
        (SNAPSHOTS / name).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    return sorted(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="regenerate the saved WAT in snapshots/")
    args = parser.parse_args(argv)
    if not args.write:
        parser.print_help()
        return 2
    for name in write():
        print(SNAPSHOTS / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
