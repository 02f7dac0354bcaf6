"""Every deviation the oracle accepts is a row of the compatibility page, and the README links it."""

from __future__ import annotations

import re
from pathlib import Path

from tests.oracle._cases import CONVERTER_CLASSES, PREDICATES, TRANSFORMS
from tests.oracle._deviations import DEVIATIONS

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "kafka-connect-compatibility.md"


def _deviation_rows() -> set[str]:
    section = PAGE.read_text(encoding="utf-8").split("## Deliberate deviations", 1)[1]
    return set(re.findall(r"^\| `([a-z0-9-]+)` \|", section, re.MULTILINE))


def test_every_accepted_deviation_is_documented_and_every_documented_one_is_recognised():
    assert {d.name for d in DEVIATIONS} == _deviation_rows()


def test_the_page_lists_every_plugin_the_oracle_compares():
    text = PAGE.read_text(encoding="utf-8")
    for name in [*TRANSFORMS, *PREDICATES, *CONVERTER_CLASSES, "Filter"]:
        assert f"`{name}" in text or f".{name}`" in text, name


def test_the_readme_links_the_page():
    assert "docs/kafka-connect-compatibility.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_page_states_each_deviations_budget():
    section = PAGE.read_text(encoding="utf-8").split("## Deliberate deviations", 1)[1]
    stated = {}
    for line in section.splitlines():
        row = re.match(r"^\| `([a-z0-9-]+)` \|", line)
        if row:
            cells = [cell.strip() for cell in line.split("|")]
            stated[row.group(1)] = int(cells[5])
    assert stated == {d.name: d.budget for d in DEVIATIONS}
