"""What a Kafka source reads, and when a sink's servers are the same cluster (no broker)."""

import pickle

import pytest

from connectors.kafka import KafkaSource
from connectors.kafka._subscription import Subscription, same_cluster, server_addresses
from tests.connectors.kafka._helpers import configured

ADDRESSES = [
    ("127.0.0.1:9092", {"loopback:9092"}),
    ("localhost:9092, broker-2:9093", {"loopback:9092", "broker-2:9093"}),
    ("Broker-1.Example.COM:9092", {"broker-1.example.com:9092"}),
    ("broker-1", {"broker-1:9092"}),                  # Kafka's default port
    ("broker-1:09092", {"broker-1:9092"}),
    ("[::1]:9094,127.0.0.2:9094", {"loopback:9094"}),  # every loopback name is one host
    ("[2001:db8::1]:9092", {"[2001:db8::1]:9092"}),
    ("PLAINTEXT://broker-1:9092", {"broker-1:9092"}),
    (" , broker-1:9092,", {"broker-1:9092"}),
]  # fmt: skip


@pytest.mark.parametrize("servers, expected", ADDRESSES)
def test_server_addresses_are_normalised(servers, expected):
    assert server_addresses(servers) == expected


@pytest.mark.parametrize("one, other, same", [
    ("localhost:9092", "127.0.0.1:9092", True),
    ("a:9092,b:9092", "b:9092,c:9092", True),     # one shared broker is enough
    ("a:9092", "a:9093", False),                  # two listeners of one broker count as two clusters
    ("a.example.com:9092", "10.0.0.1:9092", False),  # no DNS lookups
])  # fmt: skip
def test_the_same_cluster_shares_an_address(one, other, same):
    assert same_cluster(server_addresses(one), server_addresses(other)) is same


def test_a_source_subscribed_by_name_reads_only_those_topics():
    source = configured(KafkaSource, "source", kafka_bootstrap_servers="localhost:9092", topics="raw,audit")
    read = source.subscription()
    assert read == Subscription(frozenset({"loopback:9092"}), frozenset({"raw", "audit"}))
    assert (read.reads("raw"), read.reads("audit"), read.reads("raw-clean")) == (True, True, False)
    assert read.describe() == "'audit', 'raw'"


def test_a_source_subscribed_by_pattern_reads_every_whole_match_and_survives_pickling():
    source = configured(KafkaSource, "source", kafka_bootstrap_servers="b:9092", topic_pattern="raw-.*")
    read = pickle.loads(pickle.dumps(source.subscription()))
    assert (read.reads("raw-1"), read.reads("raw-"), read.reads("x-raw-1"), read.reads("raw")) == (
        True,
        True,
        False,
        False,
    )
    assert read.describe() == "topics matching 'raw-.*'"
