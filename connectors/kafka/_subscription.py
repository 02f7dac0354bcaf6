"""What a Kafka source reads, and whether a sink's cluster is the same one.

A Kafka sink must not write into a topic its own pipeline reads from the same
cluster: in batch mode the output lands among the input, in streaming mode
the pipeline reads its own output forever.  "The same cluster" is decided
from the ``bootstrap.servers`` lists, without asking the brokers: the two
are the same when they share a ``host:port``, compared case-insensitively,
with the default port 9092 filled in, and with every loopback name
(``localhost``, ``127.x.x.x``, ``::1``) counting as one host.  No name is
looked up in DNS, so two different names for one broker count as two
clusters.
"""

from __future__ import annotations

import dataclasses
import functools
import re

__all__ = ["Subscription", "same_cluster", "server_addresses"]

_DEFAULT_PORT = 9092
_LOOPBACK = "loopback"


@dataclasses.dataclass(frozen=True)
class Subscription:
    """The topics a Kafka source reads (by name, or matching a regular expression) and its servers."""

    servers: frozenset[str]
    topics: frozenset[str] = frozenset()
    pattern: str | None = None

    def reads(self, topic: str) -> bool:
        """True when ``topic`` is one of the subscribed topics or matches the pattern."""
        if topic in self.topics:
            return True
        return self._regex is not None and self._regex.fullmatch(topic) is not None

    @functools.cached_property
    def _regex(self) -> re.Pattern | None:
        return None if self.pattern is None else re.compile(self.pattern)

    def describe(self) -> str:
        """``'a', 'b'`` or ``topics matching 'p'``, for messages."""
        if self.pattern is not None:
            return f"topics matching '{self.pattern}'"
        return ", ".join(f"'{topic}'" for topic in sorted(self.topics))


def server_addresses(bootstrap_servers: str) -> frozenset[str]:
    """The normalised ``host:port`` entries of a ``bootstrap.servers`` list (module docs)."""
    return frozenset(filter(None, (_normalised(entry) for entry in bootstrap_servers.split(","))))


def same_cluster(servers: frozenset[str], other: frozenset[str]) -> bool:
    """True when two normalised server lists share an address."""
    return bool(servers & other)


def _normalised(entry: str) -> str | None:
    text = entry.strip().lower()
    if not text:
        return None
    text = re.sub(r"^[a-z_]+://", "", text)  # a listener-style "PLAINTEXT://host:port"
    host, port = _split_host_port(text)
    if host == "localhost" or host == "::1" or re.fullmatch(r"127(\.\d{1,3}){3}", host):
        host = _LOOPBACK
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _split_host_port(text: str) -> tuple[str, int | str]:
    if text.startswith("["):  # [ipv6]:port
        host, _, rest = text[1:].partition("]")
        port = rest.removeprefix(":")
    elif text.count(":") == 1:
        host, port = text.split(":")
    else:  # a bare host name, or a bare IPv6 address
        host, port = text, ""
    port = port.strip()
    return host, int(port) if port.isdigit() else (port or _DEFAULT_PORT)
