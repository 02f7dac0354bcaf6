"""pytest plugin: fixtures for testing transforms, chains and pipelines.

Registered by the package's ``pytest11`` entry point, so it is active in any
test run of an environment with spark-smt and pytest installed (``pip install
spark-smt[testing]`` installs both, and confluent-kafka for ``kafka_broker``).
A user's tests get:

- ``make_record(**fields)``: a record factory with sensible defaults;
- ``make_chain(props)``: a :class:`smt.TransformChain` from a dict or
  properties text, closed at the end of the test;
- ``spark``: one local SparkSession for the whole test session;
- ``run_pipeline(props_or_path, overrides=None)``: runs a whole pipeline on
  that session and returns its output records, dead letters and counts
  (:class:`smt.testing.PipelineOutcome`; see :mod:`smt.testing.pipelines`);
- ``smt_spark_conf``: the extra Spark settings that session gets (override
  it in a conftest to add jars or settings);
- ``kafka_broker``: a real single-node Kafka broker on loopback for the
  session (needs Java, Maven and the ``test`` extra).

A test that uses ``spark`` (directly or through another fixture) is marked
``spark``, and one that uses ``kafka_broker`` is marked ``kafka``, by the
fixtures themselves: ``pytest -m "not spark"`` deselects every test that
would start a Spark JVM, whether or not its author remembered the marker.
"""

from __future__ import annotations

import itertools
import os
from typing import Any, Callable, Mapping

import pytest

from smt.testing.kafka import kafka_broker  # noqa: F401  (a fixture, offered to users too)
from smt.testing.records import make_record as _make_record

#: fixture name -> the marker every test using it gets (registered in pytest_configure)
FIXTURE_MARKERS = {
    "spark": ("spark", "needs a local Spark session (a JVM)"),
    "kafka_broker": ("kafka", "needs the local Kafka broker (a JVM)"),
}


def pytest_configure(config: pytest.Config) -> None:
    for marker, description in FIXTURE_MARKERS.values():
        config.addinivalue_line("markers", f"{marker}: {description}")


@pytest.hookimpl(tryfirst=True)  # before -m deselects, so the markers count there
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for fixture, (marker, _) in FIXTURE_MARKERS.items():
            if fixture in used and item.get_closest_marker(marker) is None:
                item.add_marker(marker)


@pytest.fixture
def make_record() -> Callable[..., Any]:
    """Factory: ``make_record(value=b"x", topic="t")`` → :class:`smt.Record`."""
    return _make_record


@pytest.fixture
def make_chain():
    """Factory: ``make_chain({"transforms": "a", ...})`` or properties text → chain."""
    from smt.chain import TransformChain

    chains: list[TransformChain] = []

    def build(props: Mapping[str, Any] | str, plugins: Any = None) -> TransformChain:
        if isinstance(props, str):
            from smt.properties import parse_properties

            props = parse_properties(props)
        chain = TransformChain.from_properties(props, plugins=plugins)
        chains.append(chain)
        return chain

    yield build
    for chain in chains:
        chain.close()


@pytest.fixture
def run_pipeline(spark, tmp_path):
    """Runner: ``run_pipeline("pipeline.properties")`` or a dict → :class:`smt.testing.PipelineOutcome`.

    The sink and the dead-letter queue are captured in the test's temporary
    folder; ``overrides={"key": "value"}`` replaces keys of the file.
    """
    from smt.testing.pipelines import run_test_pipeline

    runs = itertools.count(1)

    def run(props_or_path: Mapping[str, Any] | str | os.PathLike, overrides: Mapping[str, str] | None = None):
        return run_test_pipeline(props_or_path, spark, tmp_path / f"pipeline-run-{next(runs)}", overrides)

    return run


@pytest.fixture(scope="session")
def smt_spark_conf() -> dict[str, str]:
    """Extra settings for the ``spark`` fixture's session; override to add your own."""
    return {}


@pytest.fixture(scope="session")
def spark(smt_spark_conf, pytestconfig):
    """A local SparkSession (``local[2]``, UTC, loopback, no UI), stopped at the end."""
    from smt.local.spark_session import local_spark

    session = local_spark("smt-tests", smt_spark_conf, project_root=str(pytestconfig.rootpath))
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
