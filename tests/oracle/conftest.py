"""One Kafka Connect oracle JVM for the session (see tests/oracle/_jvm.py)."""

from __future__ import annotations

import pytest

from tests.oracle._jvm import Oracle


@pytest.fixture(scope="session")
def kafka_connect(tmp_path_factory):
    oracle = Oracle(tmp_path_factory.mktemp("oracle") / "jvm.log")
    yield oracle
    oracle.close()
