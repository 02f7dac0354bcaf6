"""The sink's ``kafka.*`` settings (Kafka's Java client names) as librdkafka takes them.

The sink's Python writers (``sink.writer=librdkafka``, and every
exactly-once write) use confluent-kafka (librdkafka), whose settings mostly
share the Java client's names.  The few that differ are translated here,
once; a Java-only setting with no librdkafka equivalent, or a value
librdkafka refuses, is refused naming its key, rather than dropped (a
security setting that is silently ignored would connect without it).
librdkafka itself is the judge of names and values: a producer is made
from the settings, without brokers to connect to, and discarded.
"""

from __future__ import annotations

import re
from typing import Mapping

from smt.errors import ConfigError, ConfigProblem

__all__ = ["librdkafka_settings", "producer_defaults"]

#: Java client setting → librdkafka's name for the same thing.
_RENAMED = {"max.request.size": "message.max.bytes"}

#: Java-only settings, and what to give instead.
_REFUSED = {
    "ssl.truststore.location": "give the CA certificates as PEM with ssl.truststore.type=PEM, or set ssl.ca.location",
    "ssl.truststore.password": "librdkafka reads a PEM CA file (ssl.ca.location), which has no password",
    "key.serializer": "records are written as the bytes the chain produced",
    "value.serializer": "records are written as the bytes the chain produced",
    "transactional.id": "the sink sets it per task from transactional.id.prefix",
}

#: Java-only settings librdkafka does without.
_IGNORED = frozenset({"ssl.truststore.type", "ssl.keystore.type", "sasl.login.callback.handler.class"})

_JAAS_OPTION = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')


def librdkafka_settings(params: Mapping[str, str], prefix: str) -> dict[str, str]:
    """librdkafka settings for the Java-style ``params`` (``kafka.`` removed).

    ``prefix`` (``sink.kafka.``) names keys in errors.  Raises
    :class:`ConfigError` naming every setting librdkafka cannot take.
    """
    settings: dict[str, str] = {}
    key_of: dict[str, str] = {}
    problems: list[ConfigProblem] = []
    for name, value in params.items():
        key = f"{prefix}{name}"
        if name in _IGNORED:
            continue
        if name == "ssl.truststore.location" and params.get("ssl.truststore.type", "").upper() == "PEM":
            settings["ssl.ca.location"], key_of["ssl.ca.location"] = value, key
        elif name in _REFUSED:
            problems.append(ConfigProblem(key, f"cannot be given to the Kafka producer: {_REFUSED[name]}"))
        elif name == "sasl.jaas.config":
            try:
                settings.update(_jaas_credentials(value, key))
            except ConfigError as exc:
                problems.extend(exc.problems)
        else:
            settings[_RENAMED.get(name, name)], key_of[_RENAMED.get(name, name)] = value, key
    if problems:
        raise ConfigError(problems)
    refused = _refused_by_librdkafka(settings, key_of, prefix)
    if refused:
        raise ConfigError(refused)
    return settings


def _refused_by_librdkafka(settings: Mapping[str, str], key_of: Mapping[str, str], prefix: str) -> list[ConfigProblem]:
    """What librdkafka refuses of ``settings``: each setting it refuses alone, else the combination."""
    whole = _producer_refusal(settings)
    if whole is None:
        return []
    alone = [
        ConfigProblem(key_of.get(name, f"{prefix}{name}"), f"the Kafka producer (librdkafka) refuses it: {why}", value)
        for name, value in settings.items()
        if (why := _producer_refusal({name: value})) is not None
    ]  # fmt: skip
    return alone or [
        ConfigProblem(prefix.rstrip("."), f"the Kafka producer (librdkafka) refuses these settings: {whole}")
    ]


def _producer_refusal(settings: Mapping[str, str]) -> str | None:
    """Why librdkafka will not make a producer of ``settings`` (no brokers: nothing connects), or None."""
    from confluent_kafka import KafkaException, Producer

    try:
        Producer({k: v for k, v in settings.items() if k != "bootstrap.servers"} | {"log_level": 0})
    except KafkaException as exc:
        return exc.args[0].str() if exc.args else str(exc)
    except (TypeError, ValueError) as exc:
        return str(exc)
    return None


def producer_defaults(settings: Mapping[str, str]) -> dict[str, str]:
    """``settings`` with what the sink's producers need unless the user chose otherwise.

    ``murmur2_random`` is the Java client's partitioner: a record with a key
    lands in the partition that Spark's Kafka sink (and any Java producer)
    would choose.
    """
    return {"partitioner": "murmur2_random", "linger.ms": "5", **settings}


def _jaas_credentials(value: str, key: str) -> dict[str, str]:
    """``sasl.username``/``sasl.password`` from a PLAIN or SCRAM login module line."""
    if "PlainLoginModule" not in value and "ScramLoginModule" not in value:
        raise ConfigError.for_key(
            key, "only the PLAIN and SCRAM login modules can be given to the Kafka producer; "
            "set sasl.username and sasl.password (or librdkafka's own sasl.* settings) instead"
        )  # fmt: skip
    options = dict(_JAAS_OPTION.findall(value))
    if "username" not in options or "password" not in options:
        raise ConfigError.for_key(key, 'must give username="..." and password="..."')
    return {"sasl.username": options["username"], "sasl.password": options["password"]}
