"""Ports for the local broker: a port left in TIME_WAIT by a killed broker is free again at once."""

import socket

from smt.local._kafka_setup import HOST, port_is_free


def test_a_port_whose_connections_wait_in_time_wait_is_free_and_a_listening_one_is_not():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the broker's JVM binds on Linux
    server.bind((HOST, 0))
    server.listen()
    port = server.getsockname()[1]
    client = socket.create_connection((HOST, port))
    accepted, _ = server.accept()
    assert not port_is_free(port)
    # The server side closes first, as a killed broker's does: its end waits in TIME_WAIT.
    accepted.close()
    server.close()
    client.close()
    assert port_is_free(port)
