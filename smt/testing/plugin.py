"""pytest plugin: fixtures for testing transforms, chains and pipelines.

Installed with the package (entry point ``pytest11``), so a user's tests get:

- ``make_record(**fields)``: a record factory with sensible defaults;
- ``make_chain(props)``: a :class:`smt.TransformChain` from a dict or
  properties text, closed at the end of the test;
- ``spark``: one local SparkSession for the whole test session;
- ``smt_spark_conf``: the extra Spark settings that session gets (override
  it in a conftest to add jars or settings);
- ``kafka_broker``: a real single-node Kafka broker on loopback for the
  session (needs Java, Maven and the ``test`` extra).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Mapping

import pytest

from smt.testing.kafka import kafka_broker  # noqa: F401  (a fixture, offered to users too)
from smt.testing.records import make_record as _make_record


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


@pytest.fixture(scope="session")
def smt_spark_conf() -> dict[str, str]:
    """Extra settings for the ``spark`` fixture's session; override to add your own."""
    return {}


@pytest.fixture(scope="session")
def spark(smt_spark_conf, pytestconfig):
    """A local SparkSession (``local[2]``, UTC, loopback, no UI), stopped at the end."""
    from pyspark.sql import SparkSession

    _python_for_workers(str(pytestconfig.rootpath))
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("smt-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
    )
    for key, value in smt_spark_conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _python_for_workers(rootdir: str) -> None:
    # Python workers are separate processes: give them this interpreter, and
    # the checkout on PYTHONPATH so a not-installed working tree is importable.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if rootdir not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([rootdir, *paths])
