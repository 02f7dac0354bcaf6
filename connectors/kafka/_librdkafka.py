"""The sink's ``kafka.*`` settings (Kafka's Java client names) as librdkafka takes them.

The exactly-once path writes with confluent-kafka (librdkafka), whose
settings mostly share the Java client's names.  The few that differ are
translated here, once; a Java-only setting with no librdkafka equivalent is
refused naming its key, rather than dropped (a security setting that is
silently ignored would connect without it).
"""

from __future__ import annotations

import re
from typing import Mapping

from smt.errors import ConfigError

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
    :class:`ConfigError` for a setting librdkafka cannot take.
    """
    settings: dict[str, str] = {}
    for name, value in params.items():
        if name in _IGNORED:
            continue
        if name == "ssl.truststore.location" and params.get("ssl.truststore.type", "").upper() == "PEM":
            settings["ssl.ca.location"] = value
            continue
        if name in _REFUSED:
            raise ConfigError.for_key(f"{prefix}{name}", f"cannot be given to the Kafka producer: {_REFUSED[name]}")
        if name == "sasl.jaas.config":
            settings.update(_jaas_credentials(value, f"{prefix}{name}"))
            continue
        settings[_RENAMED.get(name, name)] = value
    return settings


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
