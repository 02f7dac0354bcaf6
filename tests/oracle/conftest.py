"""One Kafka Connect oracle JVM for the session (see tests/oracle/_jvm.py), and the count of cases
each deviation explained, printed at the end of the run (CI's output shows it)."""

from __future__ import annotations

import collections

import pytest
from hypothesis import strategies as st

from tests.oracle import _cases
from tests.oracle._deviations import DEVIATIONS
from tests.oracle._generation import generate, scaled
from tests.oracle._jvm import DEBEZIUM_BUNDLE, ZONED, Oracle

_COUNTS = pytest.StashKey[collections.Counter]()
#: The record pools: this many batches of 20 records per mode.
POOL_BATCHES = 12


@pytest.fixture(scope="session")
def kafka_connect(java, maven_resolve, tmp_path_factory):
    oracle = Oracle(java, maven_resolve, tmp_path_factory.mktemp("oracle") / "jvm.log")
    yield oracle
    oracle.close()


@pytest.fixture(scope="session")
def kafka_connect_zoned(java, maven_resolve, tmp_path_factory):
    """A second oracle JVM, in a time zone other than UTC (see worker-time-zone)."""
    oracle = Oracle(java, maven_resolve, tmp_path_factory.mktemp("oracle-zoned") / "jvm.log", ZONED)
    yield oracle
    oracle.close()


@pytest.fixture(scope="session")
def record_pools() -> dict[str, list[dict]]:
    """Records for the pipeline cases, by mode: generated once, drawn from by every case."""
    batches = st.lists(_cases.record("schemaless"), min_size=20, max_size=20)
    with_schema = st.lists(_cases.record("schema"), min_size=20, max_size=20)
    return {
        "schemaless": [r for batch in generate(batches, scaled(POOL_BATCHES)) for r in batch],
        "schema": [r for batch in generate(with_schema, scaled(POOL_BATCHES)) for r in batch],
    }


@pytest.fixture(scope="session")
def deviation_counts(pytestconfig) -> collections.Counter:
    """Cases explained by each deviation in this run, over every oracle test."""
    return pytestconfig.stash.setdefault(_COUNTS, collections.Counter())


def budget(deviation) -> int:
    return scaled(deviation.budget)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    counts = config.stash.get(_COUNTS, None)
    if counts is None:
        return
    terminalreporter.section("Kafka Connect oracle: cases explained by each deviation")
    terminalreporter.write_line(f"{'deviation':<36}{'cases':>7}{'budget':>8}")
    for deviation in DEVIATIONS:
        terminalreporter.write_line(f"{deviation.name:<36}{counts[deviation.name]:>7}{budget(deviation):>8}")


@pytest.fixture(scope="session")
def debezium(java, maven_resolve, tmp_path_factory):
    """An oracle JVM with Debezium's own transforms on Kafka Connect's classes (DEBEZIUM_BUNDLE)."""
    oracle = Oracle(
        java, maven_resolve, tmp_path_factory.mktemp("oracle-debezium") / "jvm.log", plugins=DEBEZIUM_BUNDLE
    )
    yield oracle
    oracle.close()
