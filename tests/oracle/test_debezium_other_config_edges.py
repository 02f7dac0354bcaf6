"""Values Debezium's other transforms accept and we refuse at configure time, each checked against
Debezium's own class on a batch of its family (docs/kafka-connect-compatibility.md, "Debezium's
other transforms"): we refuse the key, naming it, and Debezium either reads the value as another
one (its records equal its own for that value) or fails every record it would change.
"""

from __future__ import annotations

import re

import pytest

from tests.oracle import _ours
from tests.oracle._debezium_other import ALIAS, OUTBOX, PARTITION, TIMEZONE
from tests.oracle.test_debezium_other_transforms import family_cases

#: (name, family, keys we refuse, what Debezium reads them as (None: it fails every record it would
#: change instead), our refusal).
REFUSED_BY_US = [
    (
        "unknown-hash-function",
        PARTITION,
        {"partition.hash.function": "sha256"},
        {"partition.hash.function": "java"},  # Debezium falls back to java, silently
        r"transforms\.t\.partition\.hash\.function: must be one of java, murmur",
    ),
    (
        "offset-beyond-18-hours",
        TIMEZONE,
        {"converted.timezone": "+19:00"},
        None,  # the offset matches Debezium's pattern; ZoneId.of fails on each event
        r"transforms\.t\.converted\.timezone: an offset must be from -18:00 to \+18:00",
    ),
    (
        "unknown-placement",
        OUTBOX,
        {"table.fields.additional.placement": "type:sideways"},
        None,  # Debezium fails each event it routes (a null placement)
        r"transforms\.t\.table\.fields\.additional\.placement: placement of type must be one of",
    ),
]


def _with(case: dict, keys: dict) -> dict:
    return {**case, "config": {**case["config"], **{f"transforms.{ALIAS}.{k}": v for k, v in keys.items()}}}


def _written_by_ours(case: dict) -> list[bool]:
    """Which records our transform writes with a value, under the family's own settings."""
    return ["ok" in r and r["ok"]["value"] is not None for r in _ours.run(case)["records"]]


@pytest.mark.parametrize("name, family, keys, read_as, refusal", REFUSED_BY_US, ids=[r[0] for r in REFUSED_BY_US])
def test_we_refuse_what_debezium_takes(debezium, name, family, keys, read_as, refusal):
    case = next(c for c in family_cases(family) if "config_error" not in _ours.run(c) and any(_written_by_ours(c)))
    ours = _ours.run(_with(case, keys))
    assert ours["config_error"]["class"] == "ConfigError"
    assert re.search(refusal, ours["config_error"]["message"]), ours
    loose = debezium.run([_with(case, keys)])[0]
    assert "config_error" not in loose, loose
    if read_as is not None:
        assert loose == debezium.run([_with(case, read_as)])[0]
    else:
        errors = [r for r in loose["records"] if "error" in r]
        assert errors and all(r["error"]["stage"] == "TRANSFORMATION" for r in errors), loose
