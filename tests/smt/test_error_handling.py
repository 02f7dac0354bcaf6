"""Kafka Connect's errors.* settings: parsing, retries with backoff, logging."""

import logging

import pytest

from smt import ConfigError, Record, Stage, StageError
from smt.config_providers import SecretMask, resolve_variables
from smt.error_handling import ErrorPolicy, context_headers, log_failure, masked_error, with_retries
from smt.errors import DataError, RetriableError


def test_defaults_match_kafka_connect():
    policy = ErrorPolicy.from_properties({})
    assert (policy.tolerance, policy.retry_timeout_ms, policy.retry_delay_max_ms) == ("none", 0, 60000)
    assert not policy.log_enable and not policy.context_headers and not policy.dead_letters


@pytest.mark.parametrize(
    "props, message",
    [
        ({"errors.tolerance": "some"}, r"errors\.tolerance: must be one of none, all; got 'some'"),
        ({"errors.retry.timeout": "-2"}, r"errors\.retry\.timeout: must be at least -1"),
        ({"errors.log.enable": "yes"}, r"errors\.log\.enable: expected true or false"),
    ],
)
def test_bad_settings_name_the_key(props, message):
    with pytest.raises(ConfigError, match=message):
        ErrorPolicy.from_properties(props)


class FakeClock:
    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def sleep(self, seconds):
        self.sleeps.append(round(seconds, 3))
        self.now += seconds

    def __call__(self):
        return self.now


def flaky(failures):
    calls = []

    def operation():
        calls.append(1)
        if len(calls) <= failures:
            raise RetriableError("registry unavailable")
        return "ok"

    return operation, calls


def test_retries_back_off_from_300ms_doubling_and_capped():
    clock = FakeClock()
    operation, calls = flaky(4)
    policy = ErrorPolicy(retry_timeout_ms=60000, retry_delay_max_ms=1000)
    assert with_retries(policy, operation, sleep=clock.sleep, clock=clock) == "ok"
    assert clock.sleeps == [0.3, 0.6, 1.0, 1.0]
    assert len(calls) == 5


def test_retries_stop_at_the_timeout_and_raise_the_last_error():
    clock = FakeClock()
    operation, calls = flaky(100)
    with pytest.raises(RetriableError, match="registry unavailable"):
        with_retries(ErrorPolicy(retry_timeout_ms=1000), operation, sleep=clock.sleep, clock=clock)
    assert clock.sleeps == [0.3, 0.6, 0.1]


def test_no_retry_by_default_and_non_retriable_errors_are_not_retried():
    operation, calls = flaky(1)
    with pytest.raises(RetriableError):
        with_retries(ErrorPolicy(), operation, sleep=lambda s: None)
    assert len(calls) == 1

    def broken():
        calls.append(1)
        raise ValueError("bad data")

    with pytest.raises(ValueError):
        with_retries(ErrorPolicy(retry_timeout_ms=-1), broken, sleep=lambda s: None)


def test_context_headers_name_stage_class_and_coordinates():
    record = Record(topic="orders", partition=2, offset=9)
    error = StageError(Stage.VALUE_CONVERTER, "converters.json.JsonConverter", ValueError("bad json"), record=record)
    headers = dict(context_headers(error, record, ErrorPolicy(connector_name="c1"), task_id=3))
    assert headers == {
        "__connect.errors.topic": b"orders",
        "__connect.errors.partition": b"2",
        "__connect.errors.offset": b"9",
        "__connect.errors.connector.name": b"c1",
        "__connect.errors.task.id": b"3",
        "__connect.errors.stage": b"VALUE_CONVERTER",
        "__connect.errors.class.name": b"converters.json.JsonConverter",
        "__connect.errors.exception.class.name": b"builtins.ValueError",
        "__connect.errors.exception.message": b"bad json",
        "__connect.errors.exception.stacktrace": headers["__connect.errors.exception.stacktrace"],
    }
    assert b"ValueError: bad json" in headers["__connect.errors.exception.stacktrace"]


def test_log_includes_the_record_only_when_asked(caplog):
    record = Record(topic="t", partition=0, offset=1, value=b"secret")
    error = StageError(Stage.TRANSFORMATION, "X", ValueError("nope"), record=record)
    with caplog.at_level(logging.ERROR, logger="smt.errors"):
        log_failure(ErrorPolicy(log_enable=True), error, record)
        log_failure(ErrorPolicy(log_enable=True, log_include_messages=True), error, record)
        log_failure(ErrorPolicy(log_enable=False), error, record)
    assert len(caplog.records) == 2
    assert "secret" not in caplog.records[0].getMessage()
    assert "value=b'secret'" in caplog.records[1].getMessage()


def test_values_from_config_providers_are_masked_in_headers_logs_and_the_error_that_stops_a_run(caplog):
    policy = ErrorPolicy(log_enable=True, mask=SecretMask((("http://u:s3cr3t@h", "${env:URL}"), ("u:s3cr3t", "<c>"))))
    record = Record(topic="t", partition=0, offset=1, key=None, value=b"v")
    error = StageError(
        Stage.VALUE_CONVERTER, "AvroConverter", DataError("cannot reach http://u:s3cr3t@h"), record=record
    )
    headers = dict(context_headers(error, record, policy))
    assert headers["__connect.errors.exception.message"] == b"cannot reach ${env:URL}"
    assert b"s3cr3t" not in headers["__connect.errors.exception.stacktrace"]
    with caplog.at_level(logging.ERROR):
        log_failure(policy, error, record)
    assert "s3cr3t" not in caplog.text and "${env:URL}" in caplog.text
    stopped = masked_error(policy, error)
    assert str(stopped).endswith("DataError: cannot reach ${env:URL}") and stopped.record is record


def test_a_urls_credentials_are_masked_alone_too(monkeypatch):
    monkeypatch.setenv("S_SR", "http://admin:pa%40ss@registry:8081")
    variables = resolve_variables(
        {"config.providers": "env", "config.providers.env.class": "EnvVarConfigProvider", "url": "${env:S_SR}"}
    )
    mask = variables.secret_mask()
    assert mask("http://admin:pa%40ss@registry:8081/x") == "${env:S_SR}/x"
    assert mask("login admin:pa%40ss failed; password pa@ss") == (
        "login <credentials of ${env:S_SR}> failed; password <credentials of ${env:S_SR}>"
    )
