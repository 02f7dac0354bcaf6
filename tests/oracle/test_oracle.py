"""Kafka Connect's own classes as the oracle: generated cases, ours vs theirs, every difference named.

Hypothesis generates configurations and records for every transform (Key and
Value variants, schemaless and with schemas, nested fields, tombstones,
headers), every predicate and every converter (both directions, keys, values
and headers); one JVM (tests/oracle/_jvm.py) answers them all, and our
pipeline path answers the same cases.  A difference is either one of the
documented deviations or a failure.  The tally per plugin is printed.
The cases are the same in every process and test order (see
tests/oracle/_generation.py, which also tells how to run more of them locally).
"""

from __future__ import annotations

import pytest

from tests.oracle import _cases, _ours
from tests.oracle._compare import Tally, run_cases
from tests.oracle._deviations import DEVIATIONS
from tests.oracle._generation import generate, scaled
from tests.oracle.conftest import budget

#: Generated configurations per plugin (each transform class, predicate, converter and direction);
#: each has several records or converted items.
CONFIGS_PER_TRANSFORM = 40
CONFIGS_PER_PREDICATE = 70
CONFIGS_PER_CONVERTER = 35


def assert_matches_kafka(
    kafka_connect, deviation_counts, strategies: list, configs_each: int, minimum_cases: int, zoned=None
) -> None:
    """Generate ``configs_each`` cases from each strategy, run them both ways (and through ``zoned``,
    an oracle JVM outside UTC), and require every difference to be a documented deviation, each
    within its budget over the run so far; prints the tally per plugin."""
    cases = [case for strategy in strategies for case in generate(strategy, scaled(configs_each))]
    assert_cases_match_kafka(kafka_connect, deviation_counts, cases, minimum_cases, zoned)


def assert_cases_match_kafka(
    kafka_connect, deviation_counts, cases: list[dict], minimum_cases: int, zoned=None
) -> None:
    tally = Tally()
    run_cases(kafka_connect, cases, tally, _ours.run, zoned)
    print("\n" + tally.report())
    deviation_counts.update(tally.deviations())
    shown = "\n".join(repr(d) for d in tally.unexplained[:5])
    assert not tally.unexplained, f"{len(tally.unexplained)} unexplained differences, first ones:\n{shown}"
    over = {d.name: deviation_counts[d.name] for d in DEVIATIONS if deviation_counts[d.name] > budget(d)}
    assert not over, f"deviations over their budget (cases explained so far this run): {over}"
    for plugin in tally.verdicts:
        assert tally.cases(plugin) >= minimum_cases, f"{plugin}: only {tally.cases(plugin)} cases"


def test_every_transform_matches_kafka_connect(kafka_connect, kafka_connect_zoned, deviation_counts, record_pools):
    strategies = [_cases.transform_case(name, record_pools) for name in _cases.TRANSFORM_CLASSES]
    assert_matches_kafka(
        kafka_connect, deviation_counts, strategies, CONFIGS_PER_TRANSFORM, minimum_cases=100, zoned=kafka_connect_zoned
    )


def test_every_predicate_matches_kafka_connect(kafka_connect, kafka_connect_zoned, deviation_counts, record_pools):
    strategies = [_cases.predicate_case(name, record_pools) for name in _cases.PREDICATES]
    assert_matches_kafka(
        kafka_connect, deviation_counts, strategies, CONFIGS_PER_PREDICATE, minimum_cases=300, zoned=kafka_connect_zoned
    )


@pytest.mark.parametrize("direction", ["to_connect", "from_connect"])
def test_every_converter_matches_kafka_connect(kafka_connect, kafka_connect_zoned, deviation_counts, direction):
    strategies = [_cases.converter_case(name, direction) for name in _cases.CONVERTER_CLASSES]
    assert_matches_kafka(
        kafka_connect, deviation_counts, strategies, CONFIGS_PER_CONVERTER, minimum_cases=100, zoned=kafka_connect_zoned
    )


#: Chains of 2 to 4 transforms with predicates, over every converter pair.
CHAIN_CASES = 100


def test_chains_over_every_converter_pair_match_kafka_connect(kafka_connect, kafka_connect_zoned, deviation_counts):
    cases = generate(_cases.chain_case(), scaled(CHAIN_CASES))
    assert_cases_match_kafka(kafka_connect, deviation_counts, cases, minimum_cases=40, zoned=kafka_connect_zoned)


#: HoistField over what StringConverter and ByteArrayConverter read (string-and-bytes-read-schemaless).
HOISTED_CASES = 5


def test_hoisting_what_string_and_bytes_converters_read_matches_kafka_connect(
    kafka_connect, kafka_connect_zoned, deviation_counts
):
    cases = [
        case
        for kind in ("string", "bytearray")
        for variant in ("Key", "Value")
        for case in generate(_cases.hoisted_strings_case(kind, variant), scaled(HOISTED_CASES))
    ]
    assert_cases_match_kafka(kafka_connect, deviation_counts, cases, minimum_cases=30, zoned=kafka_connect_zoned)


#: TimestampConverter over records made of times (the general records seldom hold one).
TIMESTAMP_CASES = 40


@pytest.mark.parametrize("variant", ["Key", "Value"])
def test_timestamp_converter_over_times_matches_kafka_connect(
    kafka_connect, kafka_connect_zoned, deviation_counts, variant
):
    cases = generate(_cases.timestamp_case(variant), scaled(TIMESTAMP_CASES))
    assert_cases_match_kafka(kafka_connect, deviation_counts, cases, minimum_cases=200, zoned=kafka_connect_zoned)
