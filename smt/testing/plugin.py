"""pytest plugin: fixtures for testing transforms, chains and pipelines.

Registered by the package's ``pytest11`` entry point, so it is active in any
test run of an environment with spark-smt and pytest installed (``pip install
spark-smt[testing]`` installs both).
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
  session (needs Java and the ``test`` extra);
- ``java``: the ``java`` launcher, for a test that runs Java code itself
  (Kafka's own classes as an oracle);
- ``maven_resolve(bundle)``: :func:`smt.maven.resolve`, for a test that
  resolves jars (Apache Ivy runs on a JVM when the cache lacks them);
- ``connect_servers(work_dir, **options)``: a
  :class:`smt.local.spark_connect.LocalConnectServer` (not started), stopped
  at the end of the test session;
- ``require_guest_toolchains(*names)``: for a fixture that builds Wasm guests,
  skips the test, naming what is absent, when a toolchain it needs (``c``,
  ``zig``, ``go``, ``rust``) is not installed here.

``spark`` is the "starts a JVM" marker: every test that uses one of the
fixtures above that start a JVM (directly or through another fixture) gets
it by the fixture itself, with a finer marker naming which JVM (see
:data:`FIXTURE_MARKERS`), and a test marked ``kafka`` or ``java_oracle`` by
hand gets ``spark`` too.  So ``pytest -m "not spark"`` is the Python-only
lane, whether or not a test's author remembered a marker, and ``-m "not
kafka"`` still leaves out the broker alone.

``guest_toolchain`` is applied the same way, by ``require_guest_toolchains``:
``-m "not guest_toolchain"`` leaves out every test that compiles a guest.
``benchmark`` is placed by hand on a benchmark's smoke tests; the fast lane is
``-m "not spark and not benchmark"``.
"""

from __future__ import annotations

import itertools
import os
import shutil
from typing import Any, Callable, Mapping

import pytest

from smt.testing.kafka import kafka_broker  # noqa: F401  (a fixture, offered to users too)
from smt.testing.records import make_record as _make_record

#: The markers this plugin applies (registered in pytest_configure).  ``spark`` is the coarse one.
JVM_MARKER = "spark"
#: The markers saying which JVM a test starts: each implies ``spark``.
JVM_MARKERS = {
    JVM_MARKER: "starts a JVM: a Spark session, the local Kafka broker, or a Java oracle (Kafka Connect's "
    "classes); -m 'not spark' is the Python-only lane",
    "kafka": "needs the local Kafka broker (a JVM; also marked spark)",
    "java_oracle": "runs Java itself: Kafka Connect's classes as an oracle, javac, or Maven resolving jars "
    "(also marked spark)",
}
GUEST_TOOLCHAIN_MARKER = "guest_toolchain"
MARKERS = {
    **JVM_MARKERS,
    GUEST_TOOLCHAIN_MARKER: "compiles WebAssembly (guests, or our .wat files): skipped, naming the toolchain, where one it needs "
    "(clang and lld, Zig, Go, Rust with its wasm targets) is not installed",
    "benchmark": "runs a benchmark, even a small one: -m 'not spark and not benchmark' is the fast lane",
}
#: fixture name -> the markers every test using it, directly or through other fixtures, gets.
#: Checked on our suite with ``PATH=<shims>:$PATH pytest -m "not spark" -p no:cacheprovider -q tests/``,
#: the shims a ``java``, ``javac``, ``keytool`` and ``mvn`` that log their calls and exit 1, with the jar
#: cache ./test.sh fills: 2979 passed, 329 deselected, no call (November 2026; a cold cache would have
#: ``smt local fetch``'s tests run Maven). tests/test_python_only_lane.py runs that check over a few of
#: our modules on every CI run.
FIXTURE_MARKERS = {
    "spark": (JVM_MARKER,),
    "connect_servers": (JVM_MARKER,),
    "kafka_broker": ("kafka", JVM_MARKER),
    "java": ("java_oracle", JVM_MARKER),
    "maven_resolve": ("java_oracle", JVM_MARKER),
    "require_guest_toolchains": (GUEST_TOOLCHAIN_MARKER,),
}


def pytest_configure(config: pytest.Config) -> None:
    for marker, description in MARKERS.items():
        config.addinivalue_line("markers", f"{marker}: {description}")


@pytest.hookimpl(tryfirst=True)  # before -m deselects, so the markers count there
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ())) - _direct_parameters(item)
        wanted = {marker for fixture, markers in FIXTURE_MARKERS.items() if fixture in used for marker in markers}
        if any(item.get_closest_marker(marker) for marker in JVM_MARKERS if marker != JVM_MARKER):
            wanted.add(JVM_MARKER)  # a finer marker placed by hand (a broker of its own) starts a JVM too
        for marker in sorted(wanted):
            if item.get_closest_marker(marker) is None:
                item.add_marker(marker)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A ``guest_toolchain("c", ...)`` marker placed by hand skips like :func:`require_guest_toolchains`."""
    _skip_without_toolchains(*(name for marker in item.iter_markers(GUEST_TOOLCHAIN_MARKER) for name in marker.args))


def _skip_without_toolchains(*names: str) -> None:
    from host_functions.sdk.toolchains import missing

    absent = [reason for reason in map(missing, names) if reason is not None]
    if absent:
        pytest.skip("; ".join(absent))


def _direct_parameters(item: pytest.Item) -> set[str]:
    """The names ``@pytest.mark.parametrize`` gives values directly: arguments, not fixtures (a ``java`` case)."""
    names: set[str] = set()
    for mark in item.iter_markers("parametrize"):
        argnames = mark.args[0] if mark.args else mark.kwargs.get("argnames", ())
        given = [n.strip() for n in argnames.split(",")] if isinstance(argnames, str) else list(argnames)
        indirect = mark.kwargs.get("indirect", False)
        names.update(n for n in given if not (indirect is True or (indirect and n in indirect)))
    return names


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
def java() -> str:
    """The ``java`` on ``PATH``, for a test that runs Java code itself; a missing one fails the test, naming it."""
    found = shutil.which("java")
    assert found, "this test runs Java code: put a JDK 17 or newer on PATH"
    return found


@pytest.fixture(scope="session")
def maven_resolve() -> Callable[..., list]:
    """:func:`smt.maven.resolve`: the jars of a bundle, resolved by Apache Ivy (a JVM) unless already cached."""
    from smt import maven

    return maven.resolve


@pytest.fixture(scope="session")
def require_guest_toolchains() -> Callable[..., None]:
    """``require_guest_toolchains("c", "rust")``, first thing in a fixture that builds guests: skips the
    tests that use it, naming what is absent, where one of the toolchains is not installed here."""
    return _skip_without_toolchains


@pytest.fixture(scope="session")
def connect_servers():
    """Factory: ``connect_servers(work_dir, master=..., conf=...)`` → a
    :class:`smt.local.spark_connect.LocalConnectServer`, not started; each is stopped at the session's end."""
    from smt.local.spark_connect import LocalConnectServer

    servers: list[LocalConnectServer] = []

    def make(work_dir: str | os.PathLike, **options: Any) -> LocalConnectServer:
        servers.append(LocalConnectServer(work_dir, **options))
        return servers[-1]

    yield make
    for server in servers:
        server.stop()


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
