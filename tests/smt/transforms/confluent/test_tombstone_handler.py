"""Confluent's TombstoneHandler, from its documented behaviours."""

import logging

import pytest

from smt.data import Schema
from smt.errors import ConfigError, DataError
from smt.plugins import default_plugins
from smt.transforms.confluent.tombstone_handler import TombstoneHandler
from tests.smt.transforms._helpers import conf, make_record


def handler(props=None):
    return conf(TombstoneHandler, props or {})


def test_records_with_a_value_pass_unchanged():
    record = make_record({"a": 1})
    for behavior in ("ignore", "warn", "fail"):
        assert handler({"behavior": behavior}).apply(record) is record


@pytest.mark.parametrize("schema", [None, Schema.OPTIONAL_STRING_SCHEMA])
def test_warn_is_the_default_and_drops_with_a_warning(caplog, schema):
    with caplog.at_level(logging.DEBUG):
        assert handler().apply(make_record(None, value_schema=schema, offset=7)) is None
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert "offset 7" in caplog.text


def test_ignore_drops_quietly(caplog):
    with caplog.at_level(logging.DEBUG):
        assert handler({"behavior": "ignore"}).apply(make_record(None)) is None
    assert [r.levelname for r in caplog.records] == ["DEBUG"]


def test_fail_names_the_record_and_the_key():
    with pytest.raises(
        DataError, match=r"Tombstone record encountered \(topic test, partition 0.*transforms\.t\.behavior=fail"
    ):
        handler({"behavior": "fail"}).apply(make_record(None))


def test_unknown_behavior_is_refused():
    with pytest.raises(ConfigError, match=r"behavior.*must be one of ignore, warn, fail"):
        handler({"behavior": "drop"})


def test_registered_under_confluents_class_name():
    found = default_plugins().get("transform", "io.confluent.connect.transforms.TombstoneHandler")
    assert found is TombstoneHandler
