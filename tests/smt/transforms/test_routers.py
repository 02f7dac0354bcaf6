"""RegexRouter and TimestampRouter, with the cases of Kafka's RegexRouterTest and TimestampRouterTest."""

import pytest

from smt.errors import ConfigError, DataError
from smt.transforms.regex_router import RegexRouter
from smt.transforms.timestamp_router import TimestampRouter
from tests.smt.transforms._helpers import conf, make_record

REGEX_CASES = [  # (regex, replacement, topic, routed)
    ("foo", "bar", "foo", "bar"),  # staticReplacement
    ("foo", "bar", "orig", "orig"),  # doesntMatch
    ("(.*)", "$1", "orig", "orig"),  # identity
    ("(.*)", "prefix-$1", "orig", "prefix-orig"),  # addPrefix
    ("(.*)", "$1-suffix", "orig", "orig-suffix"),  # addSuffix
    ("(.*)-(\\d\\d\\d\\d\\d\\d\\d\\d)", "$1", "index-20160117", "index"),  # slice
    ("foo", "bar", "xfoo", "xfoo"),  # full match, not search
    ("(?<env>[a-z]+)-(.*)", "${env}_$2", "prod-orders", "prod_orders"),  # Java named groups
    ("(.*)", "\\$1", "orig", "$1"),  # escaped dollar
    ("a|ab", "X", "ab", "Xb"),  # replaceFirst after matches(), as Java
]


@pytest.mark.parametrize("regex, replacement, topic, expected", REGEX_CASES)
def test_regex_router(regex, replacement, topic, expected):
    router = conf(RegexRouter, {"regex": regex, "replacement": replacement})
    assert router.apply(make_record(topic=topic)).topic == expected


@pytest.mark.parametrize(
    "props, message",
    [
        ({"replacement": "x"}, "transforms.t.regex: is required"),
        ({"regex": "(", "replacement": "x"}, "transforms.t.regex: Invalid regex"),
        ({"regex": "x"}, "transforms.t.replacement: is required"),
    ],
)
def test_regex_router_config_errors(props, message):
    with pytest.raises(ConfigError, match=message):
        conf(RegexRouter, props)


TIMESTAMP_CASES = [  # (props, topic, timestamp, routed)
    ({}, "test", 1483425001864, "test-20170103"),  # defaultConfiguration
    (
        {"topic.format": "${timestamp}/${topic}", "timestamp.format": "yyyy-MM-dd'T'HH"},
        "t",
        1483425001864,
        "2017-01-03T06/t",
    ),
    ({"timestamp.format": "YYYY-ww"}, "t", 1483425001864, "t-2017-01"),
    ({"topic.format": "fixed"}, "t", 0, "fixed"),
]


@pytest.mark.parametrize("props, topic, timestamp, expected", TIMESTAMP_CASES)
def test_timestamp_router(props, topic, timestamp, expected):
    assert conf(TimestampRouter, props).apply(make_record(topic=topic, timestamp=timestamp)).topic == expected


def test_timestamp_router_tombstone_is_routed():
    assert conf(TimestampRouter, {}).apply(make_record(None, topic="t", timestamp=0)).topic == "t-19700101"


def test_timestamp_router_null_timestamp_is_an_error():
    with pytest.raises(DataError, match="Timestamp missing on record"):
        conf(TimestampRouter, {}).apply(make_record(topic="test", timestamp=None))


def test_timestamp_router_bad_pattern():
    with pytest.raises(ConfigError, match="transforms.t.timestamp.format: Illegal pattern character 'b'"):
        conf(TimestampRouter, {"timestamp.format": "bad"})
