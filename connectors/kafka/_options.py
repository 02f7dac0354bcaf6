"""Config pieces the Kafka source and sink share: the ``kafka.*`` pass-through and validators."""

from __future__ import annotations

import json
from typing import Any, Mapping

from smt.config import ConfigDef, ConfigType, Importance

__all__ = ["KAFKA_FILE_CONFIG", "KAFKA_PREFIX", "kafka_params", "spark_kafka_options", "offsets_spec"]

#: Keys under this prefix go to the Kafka clients unchanged (prefix removed).
KAFKA_PREFIX = "kafka."

#: The pass-through settings that name files, declared so that a relative one
#: resolves against the pipeline file's folder (the clients would resolve it
#: against whatever folder each executor runs in).
KAFKA_FILE_CONFIG = (
    ConfigDef()
    .define("kafka.ssl.keystore.location", ConfigType.PATH, None, None, Importance.LOW,
            "Kafka's ssl.keystore.location: the client's key store file.")
    .define("kafka.ssl.truststore.location", ConfigType.PATH, None, None, Importance.LOW,
            "Kafka's ssl.truststore.location: the trust store file.")
)  # fmt: skip


def kafka_params(raw_config: Mapping[str, Any]) -> dict[str, str]:
    """Kafka client settings from a connector's raw config, ``kafka.`` removed."""
    return {
        key[len(KAFKA_PREFIX) :]: str(value).strip()
        for key, value in raw_config.items()
        if key.startswith(KAFKA_PREFIX) and len(key) > len(KAFKA_PREFIX)
    }


def spark_kafka_options(raw_config: Mapping[str, Any]) -> dict[str, str]:
    """The same settings as Spark's Kafka data source wants them (``kafka.`` kept)."""
    return {KAFKA_PREFIX + key: value for key, value in kafka_params(raw_config).items()}


def offsets_spec(*keywords: str):
    """A validator: one of ``keywords``, or Spark's JSON offsets object.

    The JSON form maps topic -> partition -> offset, for example
    ``{"events":{"0":23,"1":-2}}`` (-2 = earliest, -1 = latest).
    """

    def validate(value: str) -> None:
        if value in keywords:
            return
        try:
            parsed = json.loads(value)
        except ValueError:
            raise ValueError(
                f"must be {' or '.join(keywords)}, or a JSON object of topic -> partition -> offset; got '{value}'"
            ) from None
        if not isinstance(parsed, dict) or not all(
            isinstance(partitions, dict) and all(isinstance(o, int) for o in partitions.values())
            for partitions in parsed.values()
        ):
            raise ValueError(
                f"the JSON form must map each topic to an object of partition -> integer offset; got '{value}'"
            )

    return validate
