"""The Debezium oracle's set-up, without a JVM: its classpath keeps Kafka Connect's own classes,
and its generated cases are the same when drawn again and reach what they claim to."""

from __future__ import annotations

import json
from pathlib import Path

from smt.local.kafka import CONNECT_BUNDLE
from tests.oracle import _debezium_cases
from tests.oracle._generation import generate
from tests.oracle._jvm import DEBEZIUM_BUNDLE, classpath

CONNECT = [Path("/m/connect-api-4.1.1.jar"), Path("/m/kafka-clients-4.1.1.jar"), Path("/m/jackson-core-2.19.0.jar")]
DEBEZIUM = [
    Path("/m/debezium-connect-plugins-3.6.1.Final.jar"),
    Path("/m/connect-api-4.3.0.jar"),
    Path("/m/kafka-clients-4.3.0.jar"),
    Path("/m/jackson-core-2.21.2.jar"),
    Path("/m/debezium-api-3.6.1.Final.jar"),
]


def fake_resolve(bundle):
    return {CONNECT_BUNDLE: CONNECT, DEBEZIUM_BUNDLE: DEBEZIUM}[bundle]


def test_debeziums_jars_join_connects_own_versions():
    jars = [jar.name for jar in classpath(fake_resolve, DEBEZIUM_BUNDLE)]
    assert jars == [
        "connect-api-4.1.1.jar",
        "kafka-clients-4.1.1.jar",
        "jackson-core-2.19.0.jar",
        "debezium-connect-plugins-3.6.1.Final.jar",
        "debezium-api-3.6.1.Final.jar",
    ]


def test_without_plugins_the_classpath_is_connects():
    assert classpath(fake_resolve) == CONNECT


def test_debezium_cases_are_the_same_when_drawn_again():
    strategy = _debezium_cases.case("rewrite", "dropping")
    assert json.dumps(generate(strategy, 3)) == json.dumps(generate(strategy, 3))


def test_each_focus_sets_its_keys():
    for focus, keys in _debezium_cases.FOCUSES.items():
        for case in generate(_debezium_cases.case("drop", focus), 3):
            config = case["config"]
            assert config["transforms.unwrap.delete.tombstone.handling.mode"] == "drop"
            assert all(f"transforms.unwrap.{key}" in config for key in keys), (focus, config)
