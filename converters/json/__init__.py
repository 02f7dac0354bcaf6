"""Kafka Connect's JSON converter (``org.apache.kafka.connect.json.JsonConverter``)."""

from converters.json.converter import JsonConverter

__all__ = ["JsonConverter"]
