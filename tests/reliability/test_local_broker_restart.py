"""`smt local kafka`: a broker killed with SIGKILL and started again listens where it did, so every
pipeline pointing at the address it printed goes on working."""

from __future__ import annotations

import os
import signal
import socket

import pytest

from smt.local import _kafka_setup
from smt.local.kafka import LocalKafka

pytestmark = [pytest.mark.kafka, pytest.mark.slow]


@pytest.mark.timeout(300)
def test_a_sigkilled_broker_comes_back_on_its_port_though_the_default_is_free_again(tmp_path, monkeypatch):
    held = socket.socket()  # the default port is taken when the broker first starts...
    held.bind(("127.0.0.1", 0))
    held.listen()
    monkeypatch.setattr(_kafka_setup, "DEFAULT_PORT", held.getsockname()[1])
    broker = LocalKafka(state_dir=tmp_path / "kafka")
    try:
        first = broker.start()
        assert first.bootstrap_servers != f"127.0.0.1:{_kafka_setup.DEFAULT_PORT}"
        os.kill(first.pid, signal.SIGKILL)
        os.waitpid(first.pid, 0)  # reaped: gone, not a zombie that still looks like a running broker
        held.close()  # ...and free when it starts again
        second = broker.start()
        assert not second.already_running
        assert second.bootstrap_servers == first.bootstrap_servers
    finally:
        held.close()
        broker.stop()
