"""Comparing our results with Kafka's, item by item, and naming each difference.

Two results agree when they have the same outcome (written, dropped, failed at
the same stage, configuration refused) and the same output: topic,
partition, timestamp, headers and key/value bytes; JSON is compared as the
document it is (Jackson and orjson lay numbers and object keys out
differently).  A difference that is one of our documented deviations
(``docs/kafka-connect-compatibility.md``, "Deliberate deviations") is counted
under its name; any other is unexplained, and fails the test.
"""

from __future__ import annotations

import base64
import collections
import dataclasses
import json
import math
from typing import Any

from tests.oracle._deviations import DEVIATIONS

SAME = "same"
UNEXPLAINED = "unexplained"


@dataclasses.dataclass
class Tally:
    """Verdicts per plugin, the unexplained differences, and how often error messages matched."""

    verdicts: dict[str, collections.Counter] = dataclasses.field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )
    unexplained: list[dict] = dataclasses.field(default_factory=list)
    messages: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def add(self, plugin: str, verdict: str, detail: dict) -> None:
        self.verdicts[plugin][verdict] += 1
        if verdict == UNEXPLAINED:
            self.unexplained.append(detail)

    def cases(self, plugin: str) -> int:
        return sum(self.verdicts[plugin].values())

    def report(self) -> str:
        lines = [f"{'plugin':<28}{'cases':>7}  verdicts"]
        for plugin in sorted(self.verdicts):
            counts = self.verdicts[plugin]
            shown = ", ".join(f"{name} {n}" for name, n in counts.most_common())
            lines.append(f"{plugin:<28}{self.cases(plugin):>7}  {shown}")
        total = sum(self.cases(p) for p in self.verdicts)
        lines.append(f"{'total':<28}{total:>7}")
        lines.append(f"error messages: {dict(self.messages)}")
        return "\n".join(lines)


def compare(case: dict, kafka: dict, ours: dict, tally: Tally) -> None:
    """Add a verdict for every item (record, converted datum) of ``case``."""
    plugin = case["plugin"]
    items = case.get("records") or case.get("data") or case.get("items") or []
    kafka_items = _items(kafka, len(items))
    our_items = _items(ours, len(items))
    for index, (item, theirs, mine) in enumerate(zip(items, kafka_items, our_items)):
        if _agree(case, theirs, mine, tally):
            verdict = SAME
        else:
            verdict = next((d.name for d in DEVIATIONS if d.applies(case, item, theirs, mine)), UNEXPLAINED)
        tally.add(
            plugin, verdict, {"case": _shown_case(case), "item": item, "index": index, "kafka": theirs, "ours": mine}
        )


def _items(result: dict, count: int) -> list[dict]:
    if "config_error" in result:
        return [{"config_error": result["config_error"]}] * count
    return result.get("records") or result.get("items") or []


def _agree(case: dict, theirs: dict, mine: dict, tally: Tally) -> bool:
    if set(theirs) != set(mine):
        return False
    if "error" in theirs:
        tally.messages["same" if _message_matches(theirs["error"], mine["error"]) else "different"] += 1
        return theirs["error"].get("stage") == mine["error"].get("stage")
    if "ok" in theirs:
        return same_output(case, theirs["ok"], mine["ok"])
    return True  # dropped, or a configuration refused by both


def _message_matches(theirs: dict, mine: dict) -> bool:
    return theirs["message"].strip().rstrip(":").strip() in mine["message"]


def same_output(case: dict, theirs: Any, mine: Any) -> bool:
    if case["kind"] == "to_connect":
        return same_json(theirs, mine)
    if case["kind"] == "from_connect":
        return same_bytes(theirs, mine, _is_json(case.get("converter")))
    config = case["config"]
    if any(theirs[k] != mine[k] for k in ("topic", "partition", "timestamp")):
        return False
    return (
        same_bytes(theirs["key"], mine["key"], _is_json(config.get("key.converter")))
        and same_bytes(theirs["value"], mine["value"], _is_json(config.get("value.converter")))
        and theirs["headers"] == mine["headers"]
    )


def _is_json(name: str | None) -> bool:
    return bool(name) and name.endswith("JsonConverter")


def same_bytes(theirs: str | None, mine: str | None, as_json: bool) -> bool:
    if theirs == mine:
        return True
    if theirs is None or mine is None or not as_json:
        return False
    return same_json(base64.b64decode(theirs), base64.b64decode(mine))


def same_json(theirs: str | bytes | None, mine: str | bytes | None) -> bool:
    if theirs is None or mine is None:
        return theirs is mine
    try:
        return _same_document(json.loads(theirs), json.loads(mine))
    except ValueError:
        return theirs == mine


def _same_document(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_document(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_document(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return _same_number(a, b)
    return type(a) is type(b) and a == b


def _same_number(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return False
    return float(a) == float(b) or (math.isnan(a) and math.isnan(b))


def _shown_case(case: dict) -> dict:
    return {k: v for k, v in case.items() if k not in ("records", "data", "items")}
