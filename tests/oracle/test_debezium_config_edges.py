"""Configuration edges of ExtractNewRecordState against Debezium's own class: values Debezium
accepts or refuses at configure time, one change event batch each.

Where both sides accept, every record must agree as in tests/oracle/test_debezium_oracle.py.
Where both refuse, both must refuse. The two deliberate deviations (ours refuses what Debezium
reads loosely; docs/kafka-connect-compatibility.md, Debezium section) are stated exactly: we
refuse the key, naming it, and Debezium's records equal its own for the value it reads instead.
"""

from __future__ import annotations

import re

import pytest

from tests.oracle import _debezium_cases, _ours
from tests.oracle._compare import Tally, compare
from tests.oracle._generation import generate

KEY = "transforms.unwrap."
#: (name, keys, whether both sides accept them). Both refuse where not accepted.
AGREED = [
    ("unknown-mode", {"delete.tombstone.handling.mode": "none"}, False),
    ("mode-in-capitals", {"delete.tombstone.handling.mode": "REWRITE"}, True),
    ("mode-with-spaces", {"delete.tombstone.handling.mode": " drop "}, True),
    ("two-renames", {"add.fields": "source.ts_ms:x:y"}, False),
    ("two-renames-in-headers", {"add.headers": "op:x:y"}, False),
    ("empty-entry", {"add.fields": "op,,table"}, True),
    ("empty-rename", {"add.fields": "op:"}, True),
    ("blank-route", {"route.by.field": " "}, True),
    ("blank-drop-header", {"drop.fields.header.name": " "}, True),
    ("not-a-boolean-from-key", {"drop.fields.from.key": "maybe"}, False),
]
#: (deviation, keys we refuse, what Debezium reads them as, what it does not (the batch tells
#: them apart), our refusal).
REFUSED_BY_US = [
    (
        "three-part-field-reference",
        {"add.fields": "source.ts_ms.extra"},
        {"add.fields": "source.ts_ms"},
        {"add.fields": "source.ts_ms.extra:ts"},
        r"transforms\.unwrap\.add\.fields: expected field, struct\.field or either with :new_name",
    ),
    (
        "not-a-boolean-replace-null",
        {"replace.null.with.default": "yes"},
        {"replace.null.with.default": "true"},  # Debezium reads what is not true/false as the default
        {"replace.null.with.default": "false"},
        r"transforms\.unwrap\.replace\.null\.with\.default: expected true or false, got 'yes'",
    ),
]


def _candidates() -> list[dict]:
    """Schema'd change events in rewrite mode with fields added, nulls kept null by the converter."""
    found = []
    for case in generate(_debezium_cases.case("rewrite", "adding"), 40):
        if case["config"]["value.converter.schemas.enable"] == "true":
            case["config"]["value.converter.replace.null.with.default"] = "false"
            found.append(case)
    return found


@pytest.fixture(scope="module")
def base_case() -> dict:
    return _candidates()[0]


def _with(case: dict, keys: dict) -> dict:
    return {**case, "config": {**case["config"], **{KEY + k: v for k, v in keys.items()}}}


@pytest.mark.parametrize("name, keys, accepted", AGREED, ids=[a[0] for a in AGREED])
def test_debezium_and_we_agree(debezium, base_case, name, keys, accepted):
    case = _with(base_case, keys)
    theirs = debezium.run([case])[0]
    assert ("config_error" not in theirs) is accepted, theirs
    tally = Tally()
    compare(case, theirs, _ours.run(case), tally)
    assert not tally.unexplained, tally.unexplained[:2]


@pytest.mark.parametrize("name, keys, read_as, not_read_as, refusal", REFUSED_BY_US, ids=[r[0] for r in REFUSED_BY_US])
def test_we_refuse_what_debezium_reads_loosely(debezium, name, keys, read_as, not_read_as, refusal):
    for case in _candidates():  # the first batch on which read_as and not_read_as differ
        loose, read, other = debezium.run([_with(case, k) for k in (keys, read_as, not_read_as)])
        if read != other:
            break
    assert "config_error" not in loose and loose == read and loose != other
    ours = _ours.run(_with(case, keys))
    assert ours["config_error"]["class"] == "ConfigError"
    assert re.search(refusal, ours["config_error"]["message"]), ours
