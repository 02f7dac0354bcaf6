"""Fixtures for converter tests: record factories and the registry stand-in."""

import pytest

from tests.converters.registry_stand_in import RegistryStandIn


@pytest.fixture
def registry():
    server = RegistryStandIn().start()
    yield server
    server.stop()
