"""Comparing our results with Kafka's, item by item, and naming each difference.

Two results agree when they have the same outcome (written, dropped, failed at
the same stage, configuration refused) and the same output: topic,
partition, timestamp, headers and key/value bytes; JSON is compared as the
document it is (Jackson and orjson lay numbers and object keys out
differently).  A difference that is one of our documented deviations
(``docs/kafka-connect-compatibility.md``, "Deliberate deviations") is counted
under its name; any other is unexplained, and fails the test.  Kafka also
runs each case's twins (tests/oracle/_twins.py), the variants that some
deviations are checked against, in the same batch.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, Callable

from tests.oracle import _ours
from tests.oracle._deviations import DEVIATIONS, Difference
from tests.oracle._equivalence import outcomes_agree
from tests.oracle._twins import twins

SAME = "same"
#: The one deviation between Kafka and Kafka: ours agrees with the UTC oracle, not the zoned one.
WORKER_TIME_ZONE = next(d for d in DEVIATIONS if d.name == "worker-time-zone")
UNEXPLAINED = "unexplained"


@dataclasses.dataclass
class Tally:
    """Verdicts per plugin, the unexplained differences, and how often error messages matched."""

    verdicts: dict[str, collections.Counter] = dataclasses.field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )
    unexplained: list[dict] = dataclasses.field(default_factory=list)
    messages: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    #: Every item's verdict, in order (the mutant test compares them with the unmutated run's).
    items: list[str] = dataclasses.field(default_factory=list)

    def add(self, plugin: str, verdict: str, detail: dict) -> None:
        self.verdicts[plugin][verdict] += 1
        self.items.append(verdict)
        if verdict == UNEXPLAINED:
            self.unexplained.append(detail)

    def cases(self, plugin: str) -> int:
        return sum(self.verdicts[plugin].values())

    def deviations(self) -> collections.Counter:
        """Cases explained by each deviation."""
        counts: collections.Counter = collections.Counter()
        for verdicts in self.verdicts.values():
            counts.update({k: n for k, n in verdicts.items() if k not in (SAME, UNEXPLAINED)})
        return counts

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


def run_cases(
    kafka_connect, cases: list[dict], tally: Tally, ours: Callable[[dict], dict] = _ours.run, zoned=None
) -> list[dict]:
    """Run ``cases`` (and their twins) through Kafka and ``ours``, adding a verdict per item to
    ``tally``; returns Kafka's results, to compare other versions of ours with (:func:`judge`).
    ``zoned``, another oracle JVM in a time zone other than UTC, runs the cases too (the twin
    ``zoned``: the worker-time-zone deviation)."""
    variants = [twins(case) for case in cases]
    batch = list(cases) + [twin for found in variants for twin in found.values()]
    results = kafka_connect.run(batch)
    kafka, rest = results[: len(cases)], iter(results[len(cases) :])
    answered = [(result, {name: next(rest) for name in found}, found) for result, found in zip(kafka, variants)]
    if zoned is not None:
        for (_, results_by_name, found), case, result in zip(answered, cases, zoned.run(cases)):
            results_by_name["zoned"], found["zoned"] = result, case
    judge(cases, answered, tally, ours)
    return answered


def judge(cases: list[dict], answered: list, tally: Tally, ours: Callable[[dict], dict] = _ours.run) -> None:
    """Add a verdict per item of each case, given Kafka's answers from :func:`run_cases`."""
    for case, (theirs, twin_results, twin_cases) in zip(cases, answered):
        compare(case, theirs, ours(case), tally, _twins_by_item(case, twin_results, twin_cases))


def _twins_by_item(case: dict, results: dict[str, dict], cases: dict[str, dict]) -> list[dict[str, list[dict]]]:
    count = len(_case_items(case))
    by_item: list[dict[str, list[dict]]] = [{} for _ in range(count)]
    for name, result in results.items():
        items = _items(result, len(_case_items(cases[name])))
        owners = cases[name].get("variant_of", range(count))
        for owner, item in zip(owners, items):
            by_item[owner].setdefault(name.split("#")[0], []).append(item)
    return by_item


def compare(case: dict, kafka: dict, ours: dict, tally: Tally, twins_by_item: list | None = None) -> None:
    """Add a verdict for every item (record, converted datum) of ``case``."""
    plugin = case["plugin"]
    items = _case_items(case)
    kafka_items = _items(kafka, len(items))
    our_items = _items(ours, len(items))
    twins_by_item = twins_by_item or [{} for _ in items]
    for index, (item, theirs, mine) in enumerate(zip(items, kafka_items, our_items)):
        difference = Difference(case, item, theirs, mine, twins_by_item[index])
        if outcomes_agree(case, theirs, mine):
            verdict = WORKER_TIME_ZONE.name if WORKER_TIME_ZONE.applies(difference) else SAME
            if "error" in theirs:
                tally.messages["same" if _message_matches(theirs["error"], mine["error"]) else "different"] += 1
        else:
            verdict = next((d.name for d in DEVIATIONS if d.applies(difference)), UNEXPLAINED)
        tally.add(
            plugin, verdict, {"case": _shown_case(case), "item": item, "index": index, "kafka": theirs, "ours": mine}
        )


def _case_items(case: dict) -> list[Any]:
    return case.get("records") or case.get("data") or case.get("items") or []


def _items(result: dict, count: int) -> list[dict]:
    if "config_error" in result:
        return [{"config_error": result["config_error"]}] * count
    return result.get("records") or result.get("items") or []


def _message_matches(theirs: dict, mine: dict) -> bool:
    return theirs["message"].strip().rstrip(":").strip() in mine["message"]


def _shown_case(case: dict) -> dict:
    return {k: v for k, v in case.items() if k not in ("records", "data", "items")}
