"""Small helpers shared by the Kafka connector tests."""

from __future__ import annotations

import socket

from smt.plugin import PluginContext


def configured(cls, role: str, **configs):
    """A connector of ``cls`` configured as the pipeline would, keys under ``role.``."""
    plugin = cls()
    plugin.configure({k.replace("_", "."): v for k, v in configs.items()}, PluginContext(role, f"{role}."))
    return plugin


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def as_bytes(value):
    return None if value is None else bytes(value)


def row_tuple(row) -> tuple:
    """A Spark row in Kafka layout as plain Python values (timestamp left out)."""
    headers = None if row["headers"] is None else tuple((h["key"], as_bytes(h["value"])) for h in row["headers"])
    return (as_bytes(row["key"]), as_bytes(row["value"]), row["topic"], row["partition"], row["offset"], headers)
