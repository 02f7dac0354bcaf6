"""The generator source: N deterministic JSON events, the same for the same seed."""

import datetime
import json

import pytest

from connectors.generator import GeneratorSource
from smt.errors import ConfigError
from smt.plugin import PluginContext

pytestmark = pytest.mark.spark

#: The first events for seed 7 over 50 users (Spark's xxhash64 picks users and amounts).
GOLDEN_EVENTS = [
    (
        b"user-31",
        {"event_id": 0, "user_id": "user-31", "email": "user31@example.com", "amount": 955.53, "currency": "EUR"},
    ),
    (
        b"user-7",
        {"event_id": 1, "user_id": "user-7", "email": "user7@example.com", "amount": 361.37, "currency": "EUR"},
    ),
    (
        b"user-24",
        {"event_id": 2, "user_id": "user-24", "email": "user24@example.com", "amount": 55.18, "currency": "EUR"},
    ),
]


def generator(**configs):
    source = GeneratorSource()
    source.configure({k.replace("__", "."): str(v) for k, v in configs.items()}, PluginContext(prefix="source."))
    return source


def test_events_match_the_golden_table(spark):
    rows = generator(records=3, users=50, seed=7).read(spark).orderBy("offset").collect()
    assert [(bytes(r["key"]), json.loads(r["value"])) for r in rows] == GOLDEN_EVENTS
    assert [r["offset"] for r in rows] == [0, 1, 2]
    assert {r["topic"] for r in rows} == {"events"}
    assert rows[0]["timestamp"] == datetime.datetime(2023, 11, 14, 22, 13, 20)


def test_n_records_spread_over_users_with_amounts_in_range(spark):
    rows = generator(records=500, users=20, partitions=3, rate=100).read(spark).collect()
    events = [json.loads(r["value"]) for r in rows]
    assert sorted(e["event_id"] for e in events) == list(range(500))
    assert {e["user_id"] for e in events} <= {f"user-{u}" for u in range(20)}
    assert len({e["user_id"] for e in events}) > 10
    assert all(e["email"] == e["user_id"].replace("-", "") + "@example.com" for e in events)
    assert all(0 <= e["amount"] < 1000 for e in events)
    stamps = sorted(r["timestamp"] for r in rows)
    assert stamps[1] - stamps[0] == datetime.timedelta(milliseconds=10)  # 100 records/s


def test_same_seed_same_records_other_seed_other_records(spark):
    def values(seed):
        return [r["value"] for r in generator(records=20, seed=seed).read(spark).orderBy("offset").collect()]

    assert values(1) == values(1)
    assert values(1) != values(2)


def test_bad_settings_are_named():
    with pytest.raises(ConfigError, match=r"source\.records: .*at least 0"):
        generator(records=-1)
