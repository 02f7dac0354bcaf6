"""Config pieces the Kafka source and sink share: the ``kafka.*`` pass-through and validators."""

from __future__ import annotations

import json
from typing import Any, Mapping

__all__ = ["KAFKA_PREFIX", "kafka_params", "spark_kafka_options", "offsets_spec"]

#: Keys under this prefix go to the Kafka clients unchanged (prefix removed).
KAFKA_PREFIX = "kafka."


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
                f"must be {' or '.join(keywords)}, or a JSON object of topic -> partition -> offset; "
                f"got '{value}'"
            ) from None
        if not isinstance(parsed, dict) or not all(
            isinstance(partitions, dict) and all(isinstance(o, int) for o in partitions.values())
            for partitions in parsed.values()
        ):
            raise ValueError(
                "the JSON form must map each topic to an object of partition -> integer offset; "
                f"got '{value}'"
            )

    return validate
